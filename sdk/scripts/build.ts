// Builds the published form of @muse/sdk into sdk/dist/: JavaScript and declarations by tsc, and
// the package.json that points `exports` at them. `npm pack` / `lerna publish` take that folder.
import { spawnSync } from 'node:child_process';
import { copyFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const sdk = new URL('../', import.meta.url);
const dist = new URL('dist/', sdk);

await rm(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', fileURLToPath(new URL('tsconfig.build.json', sdk))],
  {
    stdio: 'inherit',
  },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

// tsc rewrites relative `.ts` imports to `.js` in JavaScript but not in declarations.
for (const file of await readdir(dist, { recursive: true })) {
  if (!file.endsWith('.d.ts')) continue;
  const target = new URL(file, dist);
  const text = await readFile(target, 'utf8');
  await writeFile(target, text.replace(/(from\s+'\.{1,2}\/[^']*)\.ts'/g, "$1.js'"));
}

const source = JSON.parse(await readFile(new URL('package.json', sdk), 'utf8')) as Record<string, unknown>;
const published = {
  name: source.name,
  version: source.version,
  description: source.description,
  type: 'module',
  engines: source.engines,
  sideEffects: false,
  exports: { '.': { types: './index.d.ts', default: './index.js' } },
  dependencies: source.dependencies,
};
await writeFile(new URL('package.json', dist), `${JSON.stringify(published, null, 2)}\n`);
await copyFile(new URL('README.md', sdk), new URL('README.md', dist));
console.log(`built ${fileURLToPath(dist)}`);
