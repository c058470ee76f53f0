/**
 * Bench: `GET /api/v1/characters?scope=public&limit=50` over 100,000 characters, through the
 * content app (token check, account load, OpenAPI validation, permission check, list query)
 * next to the same list query issued with raw `pg` from a bare node:http handler, in one run.
 * Prints requests/s of both, their ratio, and latency percentiles. Run: `node bench/resources.ts`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import pg from 'pg';
import type { Sequelize } from '@muse/core';
import { createContentApp, createTokenSigner } from '@muse/content-api';
import { startBenchStack } from './lib.ts';

const ROWS = 100_000;
const OWNERS = 1_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const POOL = 10;
const LIST_SQL = `SELECT id, owner_id, visibility, created_at, updated_at, name, avatar_file_id, description, persona, greeting, tags
  FROM content.characters WHERE visibility = 'public' ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT $2`;

async function main(): Promise<void> {
  const stack = await startBenchStack({ poolMax: POOL });
  const { config, db } = stack;
  const rawPool = new pg.Pool({ connectionString: stack.databaseUrl, max: POOL });
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

    const app = await stack.serve(createContentApp(stack));
    const bare = await startBareServer(rawPool);
    servers.push(bare);
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

    const path = '/api/v1/characters?scope=public&limit=50';
    const headers = { authorization: `Bearer ${token}` };
    await check(`${app.url}${path}`, headers);
    await check(`${bareUrl}${path}`, headers);
    await run(`${app.url}${path}`, headers, 2); // warm-up of both
    await run(`${bareUrl}${path}`, headers, 2);
    const content = await run(`${app.url}${path}`, headers, DURATION_S);
    const raw = await run(`${bareUrl}${path}`, headers, DURATION_S);

    console.log(
      `\nGET ${path} with ${ROWS.toLocaleString('en')} rows, ${CONNECTIONS} connections, ${DURATION_S}s each, pool ${POOL}`,
    );
    console.log(row('content app', content));
    console.log(row('bare node:http + pg', raw));
    console.log(
      `ratio (content app / bare): ${(content.requests.average / raw.requests.average).toFixed(2)}`,
    );
  } finally {
    for (const server of servers) server.close();
    await rawPool.end();
    await stack.stop();
  }
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

/** The floor: the same query from a handler with no framework, auth or validation. */
async function startBareServer(pool: pg.Pool): Promise<Server> {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const { rows } = await pool.query(LIST_SQL, [offset, limit]);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(rows));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function check(url: string, headers: Record<string, string>): Promise<void> {
  const response = await fetch(url, { headers });
  const body = (await response.json()) as unknown[];
  if (response.status !== 200 || body.length !== 50)
    throw new Error(`${url} answered ${response.status} with ${body.length} rows`);
}

function run(url: string, headers: Record<string, string>, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, headers, connections: CONNECTIONS, duration });
}

function row(name: string, result: autocannon.Result): string {
  const { requests, latency, non2xx, errors } = result;
  return (
    `${name.padEnd(22)} ${requests.average.toFixed(0).padStart(7)} req/s   ` +
    `latency p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms   non-2xx ${non2xx}, errors ${errors}`
  );
}

await main();
