import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MUSE_BIN } from './support/spawn.ts';
import { tempConfigHome } from './support/terminal.ts';

describe('a reader that closes the pipe early (muse … | head -1)', () => {
  it('ends the CLI quietly with status 0, no EPIPE stack', async () => {
    const child = spawn(MUSE_BIN, ['--help'], {
      env: {
        PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        XDG_CONFIG_HOME: tempConfigHome(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Close the reading end before the CLI has written anything: every write of it meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
