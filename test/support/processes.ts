import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { stopChild } from '@muse/core';

const serverMain = fileURLToPath(new URL('../../packages/server/src/main.ts', import.meta.url));

/** How long a spawned process may take to become ready: generous, since CI machines can be busy. */
export const READY_TIMEOUT_MS = 120_000;

export interface MuseProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its exit code, once it has ended. */
  exited(): Promise<number | null>;
  /** The first match of `pattern` in its output; rejects if it exits first or the limit passes. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();
// A test that fails or times out may never reach its own clean-up: whatever this test process
// started ends with it. (The IPC channel also makes muse-server stop itself, see main.ts.)
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Runs `muse-server <args>` as its own process, the way an operator does. A worker loads the
 * bundles the global setup wrote, as the image's do, instead of spending seconds bundling. Only a
 * worker asks vitest for them: the other commands are also started from plain Node scripts
 * (processes.test.ts), where `inject` throws.
 */
export function startMuseServer(args: string[], env: Record<string, string>): MuseProcess {
  const bundles: Record<string, string> =
    args[0] === 'worker' ? { MUSE_WORKFLOW_BUNDLE_DIR: inject('workflowBundleDir') } : {};
  return startProcess([process.execPath, serverMain, ...args], { ...bundles, ...env });
}

/** Runs `command` (a program and its arguments) with the same care: output kept, ended with the test. */
export function startProcess(command: string[], env: Record<string, string>): MuseProcess {
  const args = command.slice(1);
  const child = spawn(command[0]!, args, {
    // Metrics listeners on free ports, so parallel processes on this machine never collide.
    env: {
      ...process.env,
      MUSE_CONTENT_METRICS_PORT: '0',
      MUSE_CHAT_METRICS_PORT: '0',
      MUSE_WORKER_METRICS_PORT: '0',
      // The fakes of upstreams, code providers and push services listen on loopback.
      MUSE_OUTBOUND_ALLOW: '127.0.0.1',
      // Tests are busy clients: the per-user write limit is far away (security.test.ts proves it).
      MUSE_CHAT_USER_WRITES: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(child);
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );

  return {
    child,
    output: () => output,
    exited: () => exit,
    waitForOutput(pattern, timeoutMs = READY_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (match) finish(() => resolve(match));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms: ${output}`))),
          timeoutMs,
        );
        const onExit = (code: number | null) =>
          finish(() => reject(new Error(`${command.join(' ')} exited (${code}): ${output}`)));
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          child.off('exit', onExit);
          settle();
        };
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        child.once('exit', onExit);
        check();
      });
    },
    stop: (graceMs = 5000) => stopChild(child, graceMs),
  };
}

/** Resolves once `url`/healthz answers 200; rejects as soon as the process exits. */
export async function waitUntilServing(
  url: string,
  server: MuseProcess,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 50; Date.now() < deadline; delay = Math.min(delay * 2, 1000)) {
    if (server.child.exitCode !== null) throw new Error(`muse-server exited: ${server.output()}`);
    const ok = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  throw new Error(`${url} did not start within ${timeoutMs} ms: ${server.output()}`);
}
