import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '@muse/core';

/**
 * While `muse-server dev` runs, it leaves in MUSE_DATA_DIR how to reach the Postgres and
 * Temporal it started (their ports are chosen at start), so shell commands run beside it —
 * `admin grant`, `chat create-user`, `migrate` — work without configuration.
 */
export interface DevStackInfo {
  pid: number;
  DATABASE_URL?: string;
  TEMPORAL_ADDRESS?: string;
}

const fileOf = (config: Pick<Config, 'MUSE_DATA_DIR'>) =>
  path.resolve(config.MUSE_DATA_DIR, 'dev-stack.json');

export function publishDevStack(config: Config, info: Omit<DevStackInfo, 'pid'>): () => void {
  const file = fileOf(config);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: process.pid, ...info }), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** The settings of a dev stack that is running now (its supervisor process is alive), if any. */
export function runningDevStack(config: Pick<Config, 'MUSE_DATA_DIR'>): DevStackInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(fileOf(config), 'utf8')) as DevStackInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}
