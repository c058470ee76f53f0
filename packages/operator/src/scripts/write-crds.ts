// Writes the CRDs generated from src/resources/schemas.ts into the chart; `--check` only
// compares (CI fails when a schema changed but the chart's files were not regenerated).
import { readFile, writeFile } from 'node:fs/promises';
import { renderCrdFiles } from '../resources/crd-files.ts';

const check = process.argv.includes('--check');
let stale = 0;
for (const { path, content } of renderCrdFiles()) {
  const current = await readFile(path, 'utf8').catch(() => '');
  if (current === content) continue;
  if (check) {
    console.error(`${path} is out of date: run npm run crds -w @muse/operator`);
    stale++;
  } else {
    await writeFile(path, content);
    console.log(`wrote ${path}`);
  }
}
process.exitCode = stale ? 1 : 0;
