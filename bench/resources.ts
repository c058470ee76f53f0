/**
 * Bench: `GET /api/v1/characters?scope=public&limit=50` over 100,000 characters, through a
 * `muse-server content-api` process (token check, account load, OpenAPI validation, permission
 * check, list query) next to the same work from a bare node:http + `pg` process (bench/bare.ts
 * list: the token verified with node:crypto, the account read, the same list query), in one run; each server in its own process, so neither
 * shares autocannon's event loop. Prints requests/s of both, their ratio, latency percentiles,
 * each server's CPU time per request, and both servers' latency at half the content API's saturating rate.
 * Run: `node bench/resources.ts`; `BENCH_CPU_PROF=<dir>` also writes a CPU profile of the content API and
 * of the baseline.
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Sequelize } from '@muse/core';
import { createTokenSigner } from '@muse/content-api';
import { LIST_SQL } from './bare.ts';
import {
  freePort,
  measure,
  measuredLine,
  ratioLine,
  rssBytes,
  serverNodeOptions,
  startBare,
  startBenchStack,
  startProcess,
  type BenchStack,
} from './lib.ts';

const ROWS = 100_000;
const OWNERS = 1_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const POOL = 10;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

type Server = { name: string; pid: number; url: string; stop: () => Promise<void> };

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
    console.log(
      `plan: ${(await rawPool.query(`EXPLAIN ${LIST_SQL}`, [0, 50])).rows.map((row) => row['QUERY PLAN']).join(' | ')}`,
    );

    const app = await serveContent(stack);
    servers.push(app);
    const bare = {
      name: 'bare',
      ...(await startBare(
        'list',
        { DATABASE_URL: stack.databaseUrl, POOL: String(POOL), MUSE_JWT_SECRET: config.MUSE_JWT_SECRET! },
        serverNodeOptions(),
      )),
    };
    servers.push(bare);

    const path = '/api/v1/characters?scope=public&limit=50';
    const headers = { authorization: `Bearer ${token}` };
    await sameList(`${app.url}${path}`, `${bare.url}${path}`, headers);
    const run = (name: string, server: Server, duration: number, overallRate?: number) =>
      measure(
        name,
        {
          url: `${server.url}${path}`,
          headers,
          connections: CONNECTIONS,
          duration,
          ...(overallRate ? { overallRate } : {}),
        },
        { [server.name]: server.pid, Postgres: stack.postgresCpuMs },
      );
    await run('warm-up', app, 2);
    await run('warm-up', bare, 2);
    const content = await run('content app', app, DURATION_S);
    const raw = await run('bare node:http + pg', bare, DURATION_S);
    // The latency target is taken at half the rate the content API saturates at.
    const halfRate = Math.max(1, Math.round(content.result.requests.average / 2));
    const paced = await run(`content at ${halfRate} req/s`, app, DURATION_S, halfRate);
    const pacedBare = await run(`bare at ${halfRate} req/s`, bare, DURATION_S, halfRate);

    console.log(
      `\nGET ${path} with ${ROWS.toLocaleString('en')} rows, ${CONNECTIONS} connections, ${DURATION_S}s each, pool ${POOL}, servers in their own processes`,
    );
    for (const measured of [content, raw, paced, pacedBare]) console.log(measuredLine(measured));
    console.log(ratioLine('list 50 of 100k', content, raw, 0.85));
    console.log(
      `p99 at half the saturating rate: ${paced.result.latency.p99} ms, bare at the same rate ${pacedBare.result.latency.p99} ms ` +
        `(${(paced.result.latency.p99 / Math.max(1, pacedBare.result.latency.p99)).toFixed(2)}×)`,
    );
    console.log(`content API RSS after the runs: ${mib(rssBytes(app.pid))} MiB`);
  } finally {
    for (const server of servers) await server.stop();
    await rawPool.end();
    await stack.stop();
  }
}

async function serveContent(stack: BenchStack): Promise<Server> {
  const port = await freePort();
  const started = await startProcess(
    [...serverNodeOptions(), here('../packages/server/src/main.ts'), 'content-api'],
    { ...stack.serverEnv, MUSE_CONTENT_PORT: String(port), MUSE_DATA_DIR: stack.workDir },
    port,
  );
  return { name: 'API', pid: started.child.pid!, url: `http://127.0.0.1:${port}`, stop: started.stop };
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

/** The baseline does the same work only if it answers the same 50 rows, byte for byte. */
async function sameList(ours: string, baseline: string, headers: Record<string, string>): Promise<void> {
  const [a, b] = await Promise.all([ours, baseline].map((url) => fetch(url, { headers })));
  const [bodyA, bodyB] = await Promise.all([a!.text(), b!.text()]);
  const rows = (JSON.parse(bodyA) as unknown[]).length;
  if (a!.status !== 200 || b!.status !== 200 || rows !== 50 || bodyA !== bodyB)
    throw new Error(
      `the list answered ${a!.status} (${rows} rows) and the baseline ${b!.status}, not the same body`,
    );
  console.log(`the list and its baseline answer the same ${Buffer.byteLength(bodyA)}-byte body`);
}

await main();

function mib(bytes: number): number {
  return Math.round(bytes / 1048576);
}
