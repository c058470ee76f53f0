// Rewrites the values table of charts/muse/README.md from values.yaml; `--check` only compares.
import { writeFile } from 'node:fs/promises';
import { readmeWithValuesTable } from '../resources/chart-readme.ts';

const { path, current, expected } = await readmeWithValuesTable();
if (current === expected) process.exit(0);
if (process.argv.includes('--check')) {
  console.error(`${path}: the values table is out of date: run npm run chart:readme -w @muse/operator`);
  process.exit(1);
}
await writeFile(path, expected);
console.log(`wrote ${path}`);
