import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logger.ts';

export interface DevTemporal {
  address: string;
  /** The Temporal Web UI, when the server was started with one. */
  uiUrl?: string;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'Install it with `bash scripts/install-temporal-cli.sh` (npm start and npm test run it for you), ' +
  'put a `temporal` binary on PATH or set TEMPORAL_CLI_PATH, or point TEMPORAL_ADDRESS at a running Temporal server.';

/** Finds the Temporal CLI: TEMPORAL_CLI_PATH, then PATH, then where the install script and `go install` put it. */
export function findTemporalCli(explicit?: string): string {
  if (explicit) {
    if (!existsSync(explicit))
      throw new Error(`TEMPORAL_CLI_PATH=${explicit} does not exist. ${INSTALL_HINT}`);
    return explicit;
  }
  const onPath = spawnSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const candidates = [
    path.join(os.homedir(), '.cache', 'muse-bin', 'temporal'),
    path.join(process.env.GOPATH ?? path.join(os.homedir(), 'go'), 'bin', 'temporal'),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found) return found;
  throw new Error(`No Temporal CLI found to start a development server. ${INSTALL_HINT}`);
}

/**
 * Starts `temporal server start-dev` and waits until its frontend accepts connections.
 * With `dbFile` the server keeps workflow history across restarts; without it, in memory.
 */
export async function startDevTemporal(options: {
  cliPath: string;
  port: number;
  uiPort?: number;
  dbFile?: string;
  logger: Logger;
}): Promise<DevTemporal> {
  const { cliPath, port, logger } = options;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) {
    await mkdir(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  const child = spawn(cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) =>
    logger.debug({ temporal: chunk.toString().trim() }, 'temporal'),
  );
  child.stderr?.on('data', (chunk: Buffer) =>
    logger.debug({ temporal: chunk.toString().trim() }, 'temporal'),
  );
  // Never outlive the process that started it, even when that one exits abruptly.
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`temporal dev server exited early with code ${code}`))),
  );
  exited.catch(() => {});
  await Promise.race([waitForPort(port, 60_000), exited]);
  const stop = () => stopChild(child);
  if (!options.uiPort) return { address: `127.0.0.1:${port}`, stop };
  await Promise.race([waitForPort(options.uiPort, 60_000), exited]).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { address: `127.0.0.1:${port}`, uiUrl: `http://127.0.0.1:${options.uiPort}`, stop };
}

export async function waitForPort(port: number, timeoutMs: number, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, host);
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
}

export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => (clearTimeout(kill), resolve()));
    child.kill('SIGTERM');
  });
}

/** A free TCP port on loopback, for servers whose port we choose. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
