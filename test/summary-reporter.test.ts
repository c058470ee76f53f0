import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';

const vitest = path.join(
  path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);
const fixture = path.join(import.meta.dirname, 'fixtures', 'broken-setup', 'vitest.config.ts');

// A file whose setup fails leaves its tests unrun; the closing line CI reads must still count it.
it('the closing tests: line counts a file whose setup failed as a failure', () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const run = spawnSync(process.execPath, [vitest, 'run', '--config', fixture], {
    encoding: 'utf8',
    env: { ...env, NO_COLOR: '1' },
    timeout: 110_000,
  });
  expect(run.stdout).toMatch(/Test Files\s+1 failed \| 1 passed/);
  expect(run.stdout).toMatch(/^tests: 1 passed, 1 failed, 2 skipped$/m);
  expect(run.status).toBe(1);
}, 120_000);
