import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `muse` that `npm install` links: the package's bin entry, run the way a shell runs it. */
export const MUSE_BIN = path.resolve(fileURLToPath(import.meta.url), '../../../../node_modules/.bin/muse');

export interface MuseProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr contains `text` (a prompt, a notice). */
  waitForStderr(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number; stdout: string; stderr: string }>;
}

const running = new Set<ChildProcessWithoutNullStreams>();
// A test that fails or times out may never wait for its commands: they end with the test process.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts the real `muse` in its own process, with only the environment given (plus PATH to
 * find Node 24), so the developer's own configuration and tokens never leak into a test.
 */
export function spawnMuse(args: string[], env: Record<string, string>): MuseProcess {
  const child = spawn(MUSE_BIN, args, {
    env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`, NO_COLOR: '1', ...env },
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of waiters.filter((w) => stderr.includes(w.text))) waiter.resolve();
  });
  const exited = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      running.delete(child);
      resolve({ code: code ?? -1, stdout, stderr });
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStderr(text, timeoutMs = 20_000) {
      if (stderr.includes(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no "${text}" on stderr; got: ${stderr}`)),
          timeoutMs,
        );
        waiters.push({
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        void exited.then(() => reject(new Error(`muse exited before "${text}"; stderr: ${stderr}`)));
      });
    },
    exited,
  };
}

/** Runs `muse args` to its end with `input` on stdin. */
export async function runMuse(args: string[], env: Record<string, string>, input = '') {
  const muse = spawnMuse(args, env);
  muse.child.stdin.end(input);
  return muse.exited;
}
