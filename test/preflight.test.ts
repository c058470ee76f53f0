import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const preflight = path.join(import.meta.dirname, '..', 'scripts', 'preflight.mjs');

/** A Node older than 24 installed on this machine (Debian's, say), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    if (version && Number(version.slice(1).split('.')[0]) < 24) return candidate;
  }
  return undefined;
}
const oldNode = olderNode();

it.runIf(oldNode)('npm start on an older Node stops at once with one line saying Node 24 is needed', () => {
  const run = spawnSync(oldNode!, [preflight], {
    encoding: 'utf8',
    env: { ...process.env, npm_lifecycle_event: 'prestart' },
  });
  expect(run.status).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(/^Muse needs Node\.js 24 or newer, and this is v\d+/);
});

it('passes on this Node when Temporal is given', () => {
  const run = spawnSync(process.execPath, [preflight], {
    encoding: 'utf8',
    env: { ...process.env, npm_lifecycle_event: 'pretest', MUSE_TEST_TEMPORAL_ADDRESS: '127.0.0.1:7233' },
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
});
