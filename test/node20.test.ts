import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The README promises any Node from 20 on: the checkout's bins, npm scripts and packing must work
// when the `node` on PATH is older than the Node 24 the sources need.

const root = path.join(import.meta.dirname, '..');

/** A Node older than 24 installed on this machine (Debian's, say), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    if (version && Number(version.slice(1).split('.')[0]) < 24) return candidate;
  }
  return undefined;
}
const oldNode = olderNode();

/** `node <file> args…` under the older Node, with Node 24 fetched into the usual tools cache. */
function runOld(file: string, args: string[]) {
  return spawnSync(oldNode!, [path.join(root, file), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  });
}

/** The workspaces' package.json files. */
function workspaceManifests(): { dir: string; manifest: Record<string, unknown> }[] {
  const dirs = [
    'sdk',
    'cli',
    'temporal',
    ...readdirSync(path.join(root, 'packages')).map((d) => `packages/${d}`),
  ];
  return dirs
    .filter((dir) => existsSync(path.join(root, dir, 'package.json')))
    .map((dir) => ({
      dir,
      manifest: JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')),
    }));
}

/** The shell lines of every fenced `sh` block of the three READMEs. */
function readmeCommands(): string[] {
  const lines: string[] = [];
  for (const readme of ['README.md', 'cli/README.md', 'sdk/README.md']) {
    const text = readFileSync(path.join(root, readme), 'utf8');
    for (const [, block] of text.matchAll(/```sh\n([\s\S]*?)```/g)) lines.push(...block!.split('\n'));
  }
  return lines.map((line) => line.replace(/#.*$/, '').trim()).filter(Boolean);
}

describe('the checkout on a Node older than 24', () => {
  it('has bins that are plain JavaScript, which any Node starts', () => {
    const bins = workspaceManifests().flatMap(({ dir, manifest }) =>
      Object.values((manifest.bin ?? {}) as Record<string, string>).map((bin) => path.join(dir, bin)),
    );
    expect(bins.length).toBeGreaterThan(0);
    for (const bin of bins) expect(bin).toMatch(/\.mjs$/);
  });

  it('has npm scripts that never run a .ts file with a bare node', () => {
    const manifests = [
      { dir: '.', manifest: JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) },
      ...workspaceManifests(),
    ];
    for (const { dir, manifest } of manifests)
      for (const [name, script] of Object.entries((manifest.scripts ?? {}) as Record<string, string>))
        expect(`${dir} ${name}: ${script}`).not.toMatch(/^[^:]+: node\s+(?:-\S+\s+)*\S+\.ts\b/);
  });

  it('has READMEs whose commands never run a .ts file with a bare node', () => {
    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThan(10);
    for (const command of commands) expect(command).not.toMatch(/(^|[;&|]\s*)node\s+\S+\.ts\b/);
  });

  it.runIf(oldNode)(
    'runs `muse` and `muse-server` under Node 24, printing nothing else once it is fetched',
    () => {
      for (const bin of ['cli/bin/muse.mjs', 'packages/server/bin/muse-server.mjs']) {
        runOld(bin, ['--version']); // fetches Node 24 the first time
        const run = runOld(bin, ['--version']);
        expect(run.stdout.trim(), run.stderr).toMatch(/^\d+\.\d+\.\d+$/);
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
      }
      const failed = runOld('cli/bin/muse.mjs', ['nosuchcommand']);
      expect(failed.status).toBe(2); // the CLI's own exit status comes through the wrapper
    },
    600_000,
  );

  it('refuses `npm pack` inside sdk/ and cli/, naming the commands that make the package', () => {
    for (const [dir, folders] of [
      ['sdk', 'sdk'],
      ['cli', 'sdk cli'],
    ] as const) {
      const before = readdirSync(path.join(root, dir));
      const run = spawnSync('npm', ['pack'], { cwd: path.join(root, dir), encoding: 'utf8' });
      expect(run.status).not.toBe(0);
      const dists = folders
        .split(' ')
        .map((folder) => `./${folder}/dist`)
        .join(' ');
      expect(run.stderr).toContain(`npm run build -- ${folders} && npm pack ${dists}`);
      expect(readdirSync(path.join(root, dir))).toEqual(before);
    }
  });
});
