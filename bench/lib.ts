import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  type MessageBus,
  type RunningServer,
  type Sequelize,
} from '@muse/core';
import { QueryTypes } from 'sequelize';
import { contentMigrations, createTokenSigner } from '@muse/content-api';
import { chatMigrations, createChatUser, createOrganization } from '@muse/chat-api';
import { createTemporalClient } from '@muse/temporal';
import type { BareKind } from './bare.ts';
import type { ChatUser } from './chat-client.ts';

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
  readyTimeoutMs = 180_000,
): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, args, {
    // Metrics ports are picked freely so that several servers can run side by side.
    env: { ...process.env, ...SIDE_BY_SIDE, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A bench that fails leaves none of its servers behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  await waitForPort(port, readyTimeoutMs).catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return { child, stop: () => stopChild(child) };
}

export { freePort };

/**
 * A `muse-server chat-api` process of `stack` on a free port, `env` over the stack's (a bench's
 * heartbeat, realm), with the bench's Node options; resolves once it listens.
 */
export async function startChatApi(
  stack: BenchStack,
  env: Record<string, string> = {},
): Promise<{ port: number; server: Awaited<ReturnType<typeof startProcess>> }> {
  const port = await freePort();
  const server = await startProcess(
    [
      ...serverNodeOptions(),
      fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url)),
      'chat-api',
    ],
    { ...stack.serverEnv, MUSE_CHAT_PORT: String(port), ...env },
    port,
    180_000,
  );
  return { port, server };
}

/** What a benchmark needs running: a migrated database, configuration, and a way to serve apps. */
export interface BenchStack {
  workDir: string;
  logger: Logger;
  databaseUrl: string;
  db: Sequelize;
  config: Config;
  temporal: Client;
  /** The Postgres bus of events (the benches measure the default bus). */
  bus: MessageBus;
  /** Environment of a `muse-server` API process (startProcess) on this stack's database and token secret. */
  serverEnv: Record<string, string>;
  /** Listens on a free loopback port; closed by `stop()`. */
  serve(app: RequestListener): Promise<RunningServer>;
  /** CPU time (ms) the stack's Postgres has used so far: postmaster, backends, and backends that ended. */
  postgresCpuMs(): number;
  stop(): Promise<void>;
}

/** A content-API account with credits to spare, and the JSON request headers that act as it. */
export async function benchAccount(stack: BenchStack): Promise<Record<string, string>> {
  const [user] = await stack.db.query<{ id: string }>(
    `INSERT INTO content.users (phone, balance) VALUES ('13800000000', 1000000000) RETURNING id`,
    { type: QueryTypes.SELECT },
  );
  const token = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, 3600).sign({
    id: user!.id,
    isActive: true,
    isAdmin: false,
  });
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
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
    // Load generators write far past a person's pace: the per-user limit is counted, never reached.
    MUSE_CHAT_USER_WRITES: '1000000000',
    ...options.env,
  });
  const db = createDatabase(databaseUrl, undefined, { poolMax: options.poolMax ?? 20 });
  await migrate(db, [contentMigrations, chatMigrations]);
  // The postmaster is the parent of any backend (when Postgres runs on this machine).
  const [backend] = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', {
    type: 'SELECT' as never,
  });
  const postmasterPid = parentOf(backend!.pid) ?? 0;
  const temporal = createTemporalClient(temporalAddress, config.TEMPORAL_NAMESPACE);
  const bus = new EventBus(databaseUrl, logger);
  stops.push(
    () => db.close(),
    () => temporal.connection.close().catch(() => {}),
    () => bus.close(),
  );

  return {
    workDir,
    logger,
    databaseUrl,
    db,
    config,
    temporal,
    bus,
    serverEnv: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      MUSE_HOST: '127.0.0.1',
      MUSE_JWT_SECRET: config.MUSE_JWT_SECRET!,
      MUSE_CHAT_USER_WRITES: String(config.MUSE_CHAT_USER_WRITES),
    },
    async serve(app) {
      const server = await listen(app, { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 1000 });
      stops.push(server.close);
      return server;
    },
    postgresCpuMs: () => postgresCpuMs(postmasterPid),
    async stop() {
      for (const stop of stops.reverse()) await stop();
    },
  };
}

/** A bare same-work baseline (`bench/bare.ts <kind>`) in a process of its own. */
export async function startBare(
  kind: BareKind,
  env: Record<string, string> = {},
  nodeOptions: string[] = [],
): Promise<{ pid: number; port: number; url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const started = await startProcess(
    [...nodeOptions, fileURLToPath(new URL('./bare.ts', import.meta.url)), kind],
    { ...env, PORT: String(port) },
    port,
  );
  return { pid: started.child.pid!, port, url: `http://127.0.0.1:${port}`, stop: started.stop };
}

/**
 * Starts counting CPU time of each named source (a pid, or a function such as the stack's
 * `postgresCpuMs`); the returned function gives each one's milliseconds since then.
 */
export function cpuMeter(sources: Record<string, number | (() => number)>): () => Record<string, number> {
  const read = (source: number | (() => number)) =>
    typeof source === 'number' ? processCpuMs(source) : source();
  const start = Object.fromEntries(Object.entries(sources).map(([name, source]) => [name, read(source)]));
  return () =>
    Object.fromEntries(Object.entries(sources).map(([name, source]) => [name, read(source) - start[name]!]));
}

/** a / b to two places, for "figure beside its baseline" lines. */
export const ratio = (a: number, b: number): string => (b ? (a / b).toFixed(2) : 'n/a');

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

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); 0 once it ended. */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  // utime and stime are the 12th and 13th fields after the command name.
  return fields ? ticksMs(fields[11], fields[12]) : 0;
}

/** The fields of /proc/<pid>/stat after the parenthesised command name; undefined once it ended. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const ticksMs = (user?: string, system?: string) => ((Number(user) + Number(system)) * 1000) / 100; // USER_HZ 100
const parentOf = (pid: number) => {
  const parent = statFields(pid)?.[1];
  return parent === undefined ? undefined : Number(parent);
};

/**
 * CPU time of a Postgres on this machine: its postmaster, every child (backends, background
 * writers), and the children that ended (pool connections closed meanwhile). 0 when it runs elsewhere.
 */
function postgresCpuMs(postmasterPid: number): number {
  const postmaster = postmasterPid ? statFields(postmasterPid) : undefined;
  if (!postmaster) return 0;
  let ms = ticksMs(postmaster[11], postmaster[12]) + ticksMs(postmaster[13], postmaster[14]);
  for (const name of readdirSync('/proc')) {
    if (/^\d+$/.test(name) && parentOf(Number(name)) === postmasterPid) ms += processCpuMs(Number(name));
  }
  return ms;
}

/**
 * Node options for a spawned server: `BENCH_CPU_PROF=<dir>` writes a CPU profile of it there on
 * exit (`node --cpu-prof`), for summaries of where its time goes.
 */
export function serverNodeOptions(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

export interface Measured {
  name: string;
  result: autocannon.Result;
  /** CPU ms per answered request of each source given to `measure`. */
  cpuMs: Record<string, number>;
}

/** One autocannon run, with the CPU time each source spent over it divided by the requests answered. */
export async function measure(
  name: string,
  options: autocannon.Options,
  cpuSources: Record<string, number | (() => number)>,
): Promise<Measured> {
  const meter = cpuMeter(cpuSources);
  const settings = { connections: 20, duration: 5, ...options };
  // A fixed amount of requests (logins of the codes sent) needs no more connections than requests.
  if (settings.amount) settings.connections = Math.min(settings.connections, settings.amount);
  const result = await autocannon(settings);
  const used = meter();
  const requests = Math.max(1, result.requests.total);
  const cpuMs = Object.fromEntries(Object.entries(used).map(([source, ms]) => [source, ms / requests]));
  return { name, result, cpuMs };
}

/** One line per run: rate, latency, CPU per request of each source, refusals. */
export function measuredLine({ name, result, cpuMs }: Measured): string {
  const bad = result.non2xx + result.errors;
  const cpu = Object.entries(cpuMs)
    .map(([source, ms]) => `${source} ${ms.toFixed(2)}`)
    .join(', ');
  return (
    `${name.padEnd(46)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms` +
    `  CPU ms/req: ${cpu}${bad ? `  (${bad} non-2xx/errors)` : ''}`
  );
}

/**
 * "ours vs baseline" as a ratio of request rates, against its target; and the ratio of the CPU
 * both spent per request (server + Postgres, baseline over ours), which a busy machine moves far
 * less than the rates: on a quiet, saturated machine the rate ratio tends to it.
 */
export function ratioLine(what: string, ours: Measured, baseline: Measured, target: number): string {
  const value = ours.result.requests.average / Math.max(1, baseline.result.requests.average);
  const cpu = (measured: Measured) => Object.values(measured.cpuMs).reduce((sum, ms) => sum + ms, 0);
  return (
    `${what}: ${value.toFixed(2)}× its same-work baseline's rate (target ≥ ${target}: ${value >= target ? 'met' : 'not met'}); ` +
    `CPU per request ${ratio(cpu(baseline), cpu(ours))}× (baseline's ${cpu(baseline).toFixed(2)} ms / ours ${cpu(ours).toFixed(2)} ms, server + Postgres)`
  );
}

/** The pid of this process's child whose command line contains `needle` (the Temporal dev server: 'start-dev'). */
export function ownChildNamed(needle: string): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || parentOf(Number(name)) !== process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle)) return Number(name);
    } catch {
      // it ended meanwhile
    }
  }
  return undefined;
}

/**
 * Has a process started with `--inspect=127.0.0.1:<port>` run a full garbage collection (the
 * inspector's HeapProfiler.collectGarbage), so that its memory is what it holds, not garbage
 * that was not collected yet.
 */
export async function collectGarbage(inspectPort: number): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${inspectPort}/json/list`);
  const [target] = (await response.json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  await new Promise<void>((resolve) => {
    socket.onmessage = (event) => {
      if ((JSON.parse(String(event.data)) as { id?: number }).id === 1) resolve();
    };
    socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
  });
  socket.close();
}

/** A messaging organization `subdomain` with two members, a sender and a recipient, for the delivery benches. */
export async function senderAndRecipient(
  db: Sequelize,
  subdomain: string,
): Promise<[ChatUser & { id: number }, ChatUser & { id: number }]> {
  await createOrganization(db, { subdomain, name: 'Bench' });
  const member = async (name: string) => {
    const user = await createChatUser(db, {
      subdomain,
      email: `${name}-${subdomain}@example.com`,
      fullName: name,
      role: 400,
    });
    return { id: user.id, delivery_email: user.delivery_email, api_key: user.api_key };
  };
  return Promise.all([member('sender'), member('recipient')]);
}
