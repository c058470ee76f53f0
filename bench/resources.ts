/**
 * Bench: `GET /api/v1/characters?scope=public&limit=50` over 100,000 characters, through a
 * `muse-server content-api` process (token check, account load, OpenAPI validation, permission
 * check, list query) next to the same list query issued with raw `pg` from a bare node:http
 * process (bench/bare-list-server.ts), in one run; each server in its own process, so neither
 * shares autocannon's event loop. Prints requests/s of both, their ratio, latency percentiles,
 * each server's CPU time per request, and both servers' latency at half the content API's saturating rate.
 * Run: `node bench/resources.ts`; `BENCH_CPU_PROF=<dir>` also writes a CPU profile of the content API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import type { Sequelize } from '@muse/core';
import { createTokenSigner } from '@muse/content-api';
import { LIST_SQL } from './bare-list-server.ts';
import { freePort, processCpuMs, rssBytes, serverNodeOptions, startBenchStack, startProcess } from './lib.ts';

const ROWS = 100_000;
const OWNERS = 1_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const POOL = 10;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

type Server = { pid: number; url: string; stop: () => Promise<void> };
type Measured = autocannon.Result & { cpuMsPerRequest: number; postgresCpuMsPerRequest: number };

async function main(): Promise<void> {
  const stack = await startBenchStack({ poolMax: POOL });
  const { config, db } = stack;
  const rawPool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
  const servers: Server[] = [];
  try {
    const userId = await seed(db);
    const token = await createTokenSigner(config.MUSE_JWT_SECRET!, 3600).sign({
      id: userId,
      isActive: true,
      isAdmin: false,
    });
    // The postmaster is the parent of any backend (when Postgres runs on this machine).
    const backend = (await rawPool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const backendStat = statOf(backend);
    postmasterPid = backendStat ? parentOf(backendStat) : 0;
    console.log(
      `plan: ${(await rawPool.query(`EXPLAIN ${LIST_SQL}`, [0, 50])).rows.map((row) => row['QUERY PLAN']).join(' | ')}`,
    );

    const app = await serve([here('../packages/server/src/main.ts'), 'content-api'], (port) => ({
      ...stack.serverEnv,
      MUSE_CONTENT_PORT: String(port),
      MUSE_DATA_DIR: stack.workDir,
    }));
    servers.push(app);
    const bare = await serve([here('./bare-list-server.ts')], (port) => ({
      PORT: String(port),
      DATABASE_URL: stack.databaseUrl,
      POOL: String(POOL),
    }));
    servers.push(bare);

    const path = '/api/v1/characters?scope=public&limit=50';
    const headers = { authorization: `Bearer ${token}` };
    await check(`${app.url}${path}`, headers);
    await check(`${bare.url}${path}`, headers);
    await run(app, path, headers, 2); // warm-up of both
    await run(bare, path, headers, 2);
    const content = await run(app, path, headers, DURATION_S);
    const raw = await run(bare, path, headers, DURATION_S);
    // The latency target is taken at half the rate the content API saturates at.
    const halfRate = Math.max(1, Math.round(content.requests.average / 2));
    const paced = await run(app, path, headers, DURATION_S, halfRate);
    const pacedBare = await run(bare, path, headers, DURATION_S, halfRate);

    console.log(
      `\nGET ${path} with ${ROWS.toLocaleString('en')} rows, ${CONNECTIONS} connections, ${DURATION_S}s each, pool ${POOL}, servers in their own processes`,
    );
    console.log(row('content app', content));
    console.log(row('bare node:http + pg', raw));
    console.log(row(`content at ${halfRate} req/s`, paced));
    console.log(row(`bare at ${halfRate} req/s`, pacedBare));
    console.log(
      `ratio (content app / bare): ${(content.requests.average / raw.requests.average).toFixed(2)} (target >= 0.7); ` +
        `p99 at half the saturating rate: ${paced.latency.p99} ms, bare at the same rate ${pacedBare.latency.p99} ms (target < 20)`,
    );
    console.log(`content API RSS after the runs: ${mib(rssBytes(app.pid))} MiB`);
  } finally {
    for (const server of servers) await server.stop();
    await rawPool.end();
    await stack.stop();
  }
}

async function serve(args: string[], env: (port: number) => Record<string, string>): Promise<Server> {
  const port = await freePort();
  const started = await startProcess(
    [...(args.length > 1 ? serverNodeOptions() : []), ...args],
    env(port),
    port,
  );
  return { pid: started.child.pid!, url: `http://127.0.0.1:${port}`, stop: started.stop };
}

/** 1,000 users and 100,000 characters, half public, created over the past ~100 days. */
async function seed(db: Sequelize): Promise<string> {
  await db.query(`
    INSERT INTO content.users (phone)
      SELECT '138' || lpad(n::text, 8, '0') FROM generate_series(1, ${OWNERS}) AS n;
    INSERT INTO content.characters (owner_id, visibility, name, description, persona, tags, created_at, updated_at)
      SELECT u.ids[1 + n % ${OWNERS}], CASE WHEN n % 2 = 0 THEN 'public' ELSE 'private' END,
             'Character ' || n, 'A character for the bench', 'You are character ' || n || '.', '["bench"]'::jsonb,
             now() - n * interval '90 seconds', now() - n * interval '90 seconds'
        FROM generate_series(1, ${ROWS}) AS n, (SELECT array_agg(id) AS ids FROM content.users) AS u;
    ANALYZE content.characters;
  `);
  const [rows] = await db.query(`SELECT id FROM content.users LIMIT 1`);
  return (rows as { id: string }[])[0]!.id;
}

async function check(url: string, headers: Record<string, string>): Promise<void> {
  const response = await fetch(url, { headers });
  const body = (await response.json()) as unknown[];
  if (response.status !== 200 || body.length !== 50)
    throw new Error(`${url} answered ${response.status} with ${body.length} rows`);
}

/** A run against `server`, with the server's CPU time over it divided by the requests it answered. */
async function run(
  server: Server,
  path: string,
  headers: Record<string, string>,
  duration: number,
  overallRate?: number,
): Promise<Measured> {
  const cpuBefore = processCpuMs(server.pid);
  const postgresBefore = postgresCpuMs();
  const result = await autocannon({
    url: `${server.url}${path}`,
    headers,
    connections: CONNECTIONS,
    duration,
    ...(overallRate ? { overallRate } : {}),
  });
  const cpuMs = processCpuMs(server.pid) - cpuBefore;
  const postgresMs = postgresCpuMs() - postgresBefore;
  const requests = Math.max(1, result.requests.total);
  return { ...result, cpuMsPerRequest: cpuMs / requests, postgresCpuMsPerRequest: postgresMs / requests };
}

/**
 * CPU time of the bench's embedded Postgres (its postmaster and every backend), from /proc: on a
 * small machine it competes with the servers for the same cores.
 */
function postgresCpuMs(): number {
  let ms = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = statOf(pid);
    if (!stat || (pid !== postmasterPid && parentOf(stat) !== postmasterPid)) continue;
    ms += processCpuMs(pid);
    if (pid === postmasterPid) {
      // Backends that ended (idle pool connections) leave their time in the postmaster's children's total.
      const [childrenUser, childrenSystem] = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .slice(13, 15);
      ms += ((Number(childrenUser) + Number(childrenSystem)) * 1000) / 100;
    }
  }
  return ms;
}

function statOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // it ended meanwhile
  }
}

const parentOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
let postmasterPid = 0;

function row(name: string, result: Measured): string {
  const { requests, latency, non2xx, errors, cpuMsPerRequest, postgresCpuMsPerRequest } = result;
  return (
    `${name.padEnd(26)} ${requests.average.toFixed(0).padStart(7)} req/s   ` +
    `latency p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms   ` +
    `server CPU ${cpuMsPerRequest.toFixed(2)} ms/req, Postgres ${postgresCpuMsPerRequest.toFixed(2)} ms/req   non-2xx ${non2xx}, errors ${errors}`
  );
}

await main();

function mib(bytes: number): number {
  return Math.round(bytes / 1048576);
}
