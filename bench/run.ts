import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench`: runs every benchmark in this folder, one process each, platform first.
 * `npm run bench -- resources` runs only the named ones.
 */
const folder = fileURLToPath(new URL('.', import.meta.url));
const support = new Set([
  'run.ts',
  'lib.ts',
  'chat-client.ts',
  'bare-server.ts',
  'bare-broadcast.ts',
  'bare-list-server.ts',
]);
const all = readdirSync(folder)
  .filter((file) => file.endsWith('.ts') && !support.has(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort((a, b) => (a === 'platform' ? -1 : b === 'platform' ? 1 : a.localeCompare(b)));
const chosen = process.argv.slice(2).length
  ? all.filter((name) => process.argv.slice(2).includes(name))
  : all;

let failed = 0;
for (const name of chosen) {
  console.log(`\n=== bench: ${name}`);
  const result = spawnSync(process.execPath, [`${folder}${name}.ts`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
