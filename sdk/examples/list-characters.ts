// Lists every character the caller owns, oldest first, however many pages: node list-characters.ts
// Environment: MUSE_URL (content API), MUSE_TOKEN (a bearer token).
import { createContentClient } from '@muse/sdk';

const muse = createContentClient({ baseUrl: process.env.MUSE_URL!, token: process.env.MUSE_TOKEN! });
let count = 0;
for await (const character of muse.paginate('/api/v1/characters', { params: { query: { desc: false } } })) {
  count += 1;
  console.log(`${character.id}  ${character.name}`);
}
console.log(`${count} characters`);
