import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

function run(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [main, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('muse-server start-up', () => {
  it('stops on a wrong configuration value and names the variable', () => {
    const result = run(['content-api'], { MUSE_CONTENT_PORT: 'abc' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('MUSE_CONTENT_PORT="abc"');
  });

  it('says what to do when the database is not configured', () => {
    const result = run(['migrate'], { DATABASE_URL: '' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL is not set.*muse-server dev/);
  });
});
