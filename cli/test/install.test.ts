import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MUSE_BIN, runMuse } from './support/spawn.ts';
import { tempConfigHome } from './support/terminal.ts';

const run = promisify(execFile);
const cliFolder = path.resolve(import.meta.dirname, '..');

describe('the muse bin entry', () => {
  it('is what npm links into node_modules/.bin (npx muse)', async () => {
    expect(fs.realpathSync(MUSE_BIN)).toBe(path.join(cliFolder, 'bin', 'muse.mjs'));
    const result = await runMuse(['--version'], { XDG_CONFIG_HOME: tempConfigHome() });
    expect(result).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('is put on PATH by npm install -g from the repository', async () => {
    const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'muse-global-'));
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    await run('npm', ['install', '-g', cliFolder, '--prefix', prefix, '--no-audit', '--no-fund'], { env });
    const { stdout } = await run(path.join(prefix, 'bin', 'muse'), ['--help'], { env });
    expect(stdout).toMatch(/^Usage: muse \[options\] \[command\]/);
  });
});
