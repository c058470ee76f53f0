import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Client } from '@temporalio/client';
import {
  EventBus,
  createDatabase,
  createLogger,
  findTemporalCli,
  freePort,
  listen,
  loadConfig,
  migrate,
  startDevTemporal,
  startEmbeddedPostgres,
  stopChild,
  waitForPort,
  type Config,
  type Logger,
  type RunningServer,
  type Sequelize,
} from '@muse/core';
import { contentMigrations } from '@muse/content-api';
import { chatMigrations } from '@muse/chat-api';
import { createTemporalClient } from '@muse/temporal';

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** Drives `url` with autocannon for a fixed time and connection count; bounded, loopback only. */
export async function load(
  name: string,
  url: string,
  options: Partial<autocannon.Options> = {},
): Promise<LoadResult> {
  const result = await autocannon({ url, connections: 20, duration: 5, ...options });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export function printResults(title: string, results: LoadResult[]): void {
  console.log(`\n${title}`);
  console.table(
    results.map((r) => ({
      target: r.name,
      'req/s': r.requestsPerSecond,
      'p50 ms': r.p50Ms,
      'p99 ms': r.p99Ms,
      errors: r.errors + r.non2xx,
    })),
  );
}

const SIDE_BY_SIDE = {
  MUSE_CONTENT_METRICS_PORT: '0',
  MUSE_CHAT_METRICS_PORT: '0',
  MUSE_WORKER_METRICS_PORT: '0',
  MUSE_OUTBOUND_ALLOW: '127.0.0.1',
};

/** Starts a Node script as its own process (servers are measured apart from the load generator). */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  port: number,
  readyTimeoutMs = 60_000,
): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, args, {
    // Metrics ports are picked freely so that several servers can run side by side.
    env: { ...process.env, ...SIDE_BY_SIDE, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A process that does not come up is not left behind.
  await waitForPort(port, readyTimeoutMs).catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return { child, stop: () => stopChild(child) };
}

export { freePort };

/** What a benchmark needs running: a migrated database, configuration, and a way to serve apps. */
export interface BenchStack {
  workDir: string;
  logger: Logger;
  databaseUrl: string;
  db: Sequelize;
  config: Config;
  temporal: Client;
  events: EventBus;
  /** Environment of a `muse-server` API process (startProcess) on this stack's database and token secret. */
  serverEnv: Record<string, string>;
  /** Listens on a free loopback port; closed by `stop()`. */
  serve(app: RequestListener): Promise<RunningServer>;
  stop(): Promise<void>;
}

/**
 * Starts an embedded Postgres in a temporary folder (or uses DATABASE_URL), migrates it, and,
 * with `temporal: true`, a Temporal dev server; otherwise the Temporal client points nowhere
 * (lazy, never connected), which suits routes that do not start workflows.
 */
export async function startBenchStack(
  options: { temporal?: boolean; poolMax?: number; env?: Record<string, string> } = {},
): Promise<BenchStack> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'muse-bench-'));
  const logger = createLogger({ NODE_ENV: 'production', LOG_LEVEL: 'warn' }, 'bench');
  const stops: (() => Promise<unknown>)[] = [() => rm(workDir, { recursive: true, force: true })];

  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(workDir, 'pg'),
      port: await freePort(),
      logger,
      persistent: false,
    });
    stops.push(postgres.stop);
    databaseUrl = postgres.databaseUrl;
  }
  let temporalAddress = '127.0.0.1:1';
  if (options.temporal) {
    const server = await startDevTemporal({
      cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
      port: await freePort(),
      logger,
    });
    stops.push(server.stop);
    temporalAddress = server.address;
  }

  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    MUSE_HOST: '127.0.0.1',
    MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
    MUSE_DATA_DIR: workDir,
    // The benches' fakes (code receivers, upstreams) listen on loopback.
    MUSE_OUTBOUND_ALLOW: '127.0.0.1',
    ...options.env,
  });
  const db = createDatabase(databaseUrl, undefined, { poolMax: options.poolMax ?? 20 });
  await migrate(db, [contentMigrations, chatMigrations]);
  const temporal = createTemporalClient(temporalAddress, config.TEMPORAL_NAMESPACE);
  const events = new EventBus(databaseUrl, logger);
  stops.push(
    () => db.close(),
    () => temporal.connection.close().catch(() => {}),
    () => events.close(),
  );

  return {
    workDir,
    logger,
    databaseUrl,
    db,
    config,
    temporal,
    events,
    serverEnv: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      MUSE_HOST: '127.0.0.1',
      MUSE_JWT_SECRET: config.MUSE_JWT_SECRET!,
    },
    async serve(app) {
      const server = await listen(app, { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 1000 });
      stops.push(server.close);
      return server;
    },
    async stop() {
      for (const stop of stops.reverse()) await stop();
    },
  };
}

/** Resident memory of a process in bytes, from /proc (Linux). */
export function rssBytes(pid: number): number {
  return statusBytes(pid, 'VmRSS');
}

/** A process's own (anonymous) resident memory: RSS less the binary's and libraries' shared pages. */
export function ownMemoryBytes(pid: number): number {
  return statusBytes(pid, 'RssAnon');
}

function statusBytes(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
}

/**
 * Node options for a spawned server: `BENCH_CPU_PROF=<dir>` writes a CPU profile of it there on
 * exit (`node --cpu-prof`), for summaries of where its time goes.
 */
export function serverNodeOptions(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}
