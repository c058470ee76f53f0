// Generates an image and saves it: node generate-image.ts "a red fox" fox.png
// Environment: MUSE_URL (content API), MUSE_TOKEN (a bearer token), MUSE_GENERATOR_ID (optional).
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { createContentClient, GenerationFailedError } from '@muse/sdk';

const [prompt = 'a red fox', out = 'image.png'] = process.argv.slice(2);
const muse = createContentClient({ baseUrl: process.env.MUSE_URL!, token: process.env.MUSE_TOKEN! });
const generatorId = process.env.MUSE_GENERATOR_ID ?? '00000000-0000-4000-8000-000000000001'; // built-in

const [fileId] = await muse.generations.create('images', { generator_id: generatorId, prompt });
try {
  await muse.files.waitFor(fileId!, { onUpdate: (file) => console.log(`file ${file.id}: ${file.status}`) });
} catch (error) {
  if (!(error instanceof GenerationFailedError)) throw error;
  console.error(`generation failed: ${error.errorMessage}`);
  process.exit(1);
}
await (await muse.files.download(fileId!)).pipeTo(Writable.toWeb(createWriteStream(out)));
console.log(`saved ${out}`);
