import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, stopChild } from '@muse/core';

const serverMain = fileURLToPath(new URL('../../packages/server/src/main.ts', import.meta.url));

export type ServerProcess = ChildProcess & { output: () => string };

/** Runs `muse-server <args>` as its own process, the way an operator does. */
export function museServer(args: string[], env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [serverMain, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return Object.assign(child, { output: () => output });
}

export async function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Waits for /healthz (generously: a busy machine starts Node slowly); fails fast if the process exits. */
export async function waitUntilServing(
  url: string,
  child: ServerProcess,
  timeoutMs = 120_000,
): Promise<void> {
  for (const until = Date.now() + timeoutMs; Date.now() < until;) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${child.output()}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not start: ${child.output()}`);
}

export interface ContentApiProcess {
  url: string;
  child: ServerProcess;
  /** SIGTERM, then the exit status. */
  stop(): Promise<void>;
}

/** A `muse-server content-api` process on a free port, serving once /healthz answers. */
export async function startContentApiProcess(env: Record<string, string>): Promise<ContentApiProcess> {
  const port = await freePort();
  const child = museServer(['content-api'], { ...env, MUSE_CONTENT_PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilServing(url, child);
  return { url, child, stop: () => stopChild(child, 5000) };
}
