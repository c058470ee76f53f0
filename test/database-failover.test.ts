import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createLogger, freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '@muse/core';
import { startTestStack, type TestStack } from './support/stack.ts';
import { createTestUser } from './support/content.ts';
import { makeOrganization, makeUser, waitUntil } from '@muse/test-support/chat';

/** Debian's Postgres: the embedded package ships no pg_basebackup (CI: .ci/postgres-tools.sh). */
const PG_BIN = '/usr/lib/postgresql/15/bin';
const binaries = { initdb: `${PG_BIN}/initdb`, postgres: `${PG_BIN}/postgres` };
/** A request that has not answered by then counts as a hang. */
const REQUEST_BOUND_MS = 30_000;
const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }, 'failover-test');

/** Postgres refuses to run as root: as root, its files and tools belong to the postgres user. */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (os.userInfo().uid !== 0) return undefined;
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function adminQuery<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

interface Proxy {
  port: number;
  moveTo(port: number): void;
  /**
   * The current primary's host goes silent, as a dead machine does: the connections made stay
   * open on the clients' side, but nothing reaches them any more, not even a reset.
   */
  silence(): void;
  close(): Promise<void>;
}

/**
 * The read-write endpoint (a Kubernetes Service, a cloud proxy): forwards every new connection to
 * the current primary's port; moving it leaves the connections already made where they are.
 */
async function startProxy(target: number): Promise<Proxy> {
  let current = target;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket; silent: boolean }>();
  const server = net.createServer((client) => {
    const pair = { client, upstream: net.connect(current, '127.0.0.1'), silent: false };
    pairs.add(pair);
    for (const socket of [client, pair.upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        if (pair.silent && socket === pair.upstream) return;
        pairs.delete(pair);
        client.destroy();
        pair.upstream.destroy();
      });
    }
    client.pipe(pair.upstream).pipe(client);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    moveTo(next) {
      current = next;
    },
    silence() {
      for (const pair of pairs) {
        pair.silent = true;
        pair.client.unpipe(pair.upstream);
        pair.upstream.unpipe(pair.client);
        pair.upstream.destroy();
        pair.client.resume(); // what the client writes goes nowhere
      }
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Server {
  db: EmbeddedDatabase;
  port: number;
  dir: string;
}

/**
 * A primary with a streaming standby (pg_basebackup -R) behind a proxy, and both APIs on a
 * database reached through the proxy. Commits wait for the standby (`synchronous_standby_names`):
 * a commit the primary acknowledged is on the standby too, so what the test checks is the APIs,
 * not asynchronous replication's window of loss.
 */
async function startCluster(stackOptions: Parameters<typeof startTestStack>[1] = {}) {
  const owner = postgresOwner();
  const base = path.join(os.tmpdir(), `muse-failover-${randomBytes(4).toString('hex')}`);
  const start = async (dir: string, prepare?: (port: number) => void): Promise<Server> => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (owner) await chown(dir, owner.uid, owner.gid);
    const port = await freePort();
    prepare?.(port);
    return { db: await startEmbeddedPostgres({ dataDir: dir, port, logger, binaries }), port, dir };
  };
  const primary = await start(`${base}-primary`);
  const standby = await start(`${base}-standby`, () => {
    const copy = spawnSync(
      `${PG_BIN}/pg_basebackup`,
      [
        ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'muse', '-D', `${base}-standby`],
        ...['-R', '-X', 'stream', '-c', 'fast'],
      ],
      { ...owner, encoding: 'utf8', env: { ...process.env, PGPASSWORD: 'muse' } },
    );
    if (copy.status !== 0) throw new Error(`pg_basebackup failed: ${copy.stderr}`);
  });
  await adminQuery(primary.db.adminUrl, "ALTER SYSTEM SET synchronous_standby_names = '*'");
  await adminQuery(primary.db.adminUrl, 'SELECT pg_reload_conf()');
  await waitUntil(
    async () =>
      (
        await adminQuery<{ sync_state: string }>(
          primary.db.adminUrl,
          'SELECT sync_state FROM pg_stat_replication',
        )
      ).some((row) => row.sync_state === 'sync'),
    'the standby to replicate synchronously',
    60_000,
  );
  const proxy = await startProxy(primary.port);
  const stack = await startTestStack(
    {},
    { ...stackOptions, adminDatabaseUrl: `postgres://muse:muse@127.0.0.1:${proxy.port}/postgres` },
  );
  return {
    primary,
    standby,
    proxy,
    stack,
    /** Promotes the standby and points the proxy at it. */
    async failOver(): Promise<void> {
      await adminQuery(standby.db.adminUrl, 'SELECT pg_promote()');
      proxy.moveTo(standby.port);
    },
    async stop(): Promise<void> {
      await stack.stop();
      await proxy.close();
      for (const server of [standby, primary]) {
        await server.db.stop();
        await rm(server.dir, { recursive: true, force: true });
      }
    },
  };
}

interface Answer {
  name: string;
  status: number;
  retryAfter: string | null;
  started: number;
  at: number;
  body: string;
  content?: string;
}

/**
 * Four clients in a loop over both APIs' reads and writes (chat sends carry a unique content),
 * each request bounded by REQUEST_BOUND_MS; a request that fails without an answer has status 0.
 */
async function startLoad(stack: TestStack) {
  const user = await createTestUser(stack);
  await makeOrganization(stack);
  const chatUser = await makeUser(stack);
  const chatAuth = `Basic ${Buffer.from(`${chatUser.email}:${chatUser.apiKey}`).toString('base64')}`;
  const bounded = () => ({ signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
  const requests: { name: string; run(content: string): Promise<Response> }[] = [
    {
      name: 'content read',
      run: () => fetch(`${stack.contentUrl}/api/v1/users/me`, { headers: user.headers, ...bounded() }),
    },
    {
      name: 'content write',
      run: () =>
        fetch(`${stack.contentUrl}/api/v1/characters`, {
          method: 'POST',
          headers: { ...user.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Failover' }),
          ...bounded(),
        }),
    },
    {
      name: 'chat send',
      run: (content) =>
        fetch(`${stack.chatUrl}/api/v1/messages`, {
          method: 'POST',
          headers: { authorization: chatAuth, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ type: 'private', to: JSON.stringify([chatUser.id]), content }),
          ...bounded(),
        }),
    },
    {
      name: 'chat read',
      run: () =>
        fetch(`${stack.chatUrl}/api/v1/users/me`, { headers: { authorization: chatAuth }, ...bounded() }),
    },
  ];
  const answers: Answer[] = [];
  let sent = 0;
  let loading = true;
  const loop = async (offset: number) => {
    for (let i = offset; loading; i += 1) {
      const request = requests[i % requests.length]!;
      const content = request.name === 'chat send' ? `failover message ${(sent += 1)}` : undefined;
      const answer: Answer = {
        ...{ name: request.name, status: 0, retryAfter: null, started: Date.now(), at: 0, body: '' },
        content,
      };
      try {
        const response = await request.run(content ?? '');
        answer.status = response.status;
        answer.retryAfter = response.headers.get('retry-after');
        answer.body = await response.text();
      } catch (error) {
        answer.body = String(error); // a hang past the bound, or a dropped connection
      }
      answer.at = Date.now();
      answers.push(answer);
    }
  };
  const running = Promise.all([0, 1, 2, 3].map(loop));
  /** Every kind of request answered 2xx at least `count` times, of those started after `after`. */
  const served = (after = 0, count = 3) =>
    waitUntil(
      () =>
        requests.every(
          ({ name }) =>
            answers.filter((a) => a.name === name && a.started > after && a.status < 300).length >= count,
        ),
      'every kind of request to be served',
      120_000,
    );
  return {
    answers,
    served,
    async stop(): Promise<Answer[]> {
      loading = false;
      await running;
      return answers;
    },
  };
}

/** Every answer 2xx or 503 with Retry-After; every acknowledged message stored, none twice. */
async function expectOnlyServedOrUnavailable(stack: TestStack, answers: Answer[]): Promise<void> {
  const unexpected = answers.filter((a) => ![200, 201, 503].includes(a.status));
  expect(unexpected.map((a) => `${a.name}: ${a.status} ${a.body}`)).toEqual([]);
  for (const answer of answers.filter((a) => a.status === 503))
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  const stored = await stack.database.db.query<{ content: string; copies: string }>(
    "SELECT content, count(*) AS copies FROM chat.messages WHERE content LIKE 'failover message %' GROUP BY content",
    { type: QueryTypes.SELECT },
  );
  expect(stored.filter((row) => row.copies !== '1')).toEqual([]);
  const acknowledged = answers.filter((a) => a.name === 'chat send' && a.status === 200);
  expect(stored.map((row) => row.content)).toEqual(
    expect.arrayContaining(acknowledged.map((a) => a.content)),
  );
}

function report(scenario: string, answers: Answer[], fault: number): void {
  const after = (kinds: string[]) => {
    const first = answers.find((a) => kinds.includes(a.name) && a.started > fault && a.status < 300);
    return first ? `${first.at - fault} ms` : '—';
  };
  console.log(
    `${scenario}: ${answers.length} requests, ${answers.filter((a) => a.status === 503).length} answered 503, ` +
      `first success ${after(['content read', 'chat read', 'content write', 'chat send'])} after the fault, ` +
      `first write ${after(['content write', 'chat send'])}, ` +
      `${answers.filter((a) => a.name === 'chat send' && a.status === 200).length} messages acknowledged`,
  );
}

/**
 * A Postgres failover as production meets it (CloudNativePG, Patroni, a managed service): the
 * standby is promoted and the read-write endpoint moves to it, under a steady load on both APIs
 * (the suites' pool of one connection). Every request answers 2xx or 503 with Retry-After (never
 * 500, never a hang), both APIs serve again without a restart, and no chat message is stored
 * twice or lost once acknowledged.
 */
describe('a database failover', () => {
  it('the old primary still up but read-only: its pooled connections are dropped, not reused', async () => {
    const cluster = await startCluster();
    try {
      const load = await startLoad(cluster.stack);
      await load.served();
      // What a demoted primary answers every write on a connection still open to it: 25006.
      await adminQuery(cluster.primary.db.adminUrl, 'ALTER SYSTEM SET default_transaction_read_only = on');
      await adminQuery(cluster.primary.db.adminUrl, 'SELECT pg_reload_conf()');
      const demoted = Date.now();
      await cluster.failOver();
      await load.served(Date.now());
      const answers = await load.stop();
      await expectOnlyServedOrUnavailable(cluster.stack, answers);
      report('old primary read-only', answers, demoted);
    } finally {
      await cluster.stop();
    }
  }, 300_000);

  it('the primary SIGKILLed: 503 until the standby takes over, then served again', async () => {
    const cluster = await startCluster();
    try {
      const load = await startLoad(cluster.stack);
      await load.served();
      const pidFile = await readFile(path.join(cluster.primary.dir, 'postmaster.pid'), 'utf8');
      process.kill(Number(pidFile.split('\n')[0]), 'SIGKILL');
      const killed = Date.now();
      await waitUntil(
        () => load.answers.filter((a) => a.started > killed && a.status === 503).length >= 4,
        'answers while no primary is up',
        60_000,
      );
      await cluster.failOver();
      await load.served(Date.now());
      const answers = await load.stop();
      await expectOnlyServedOrUnavailable(cluster.stack, answers);
      report('primary killed', answers, killed);
    } finally {
      await cluster.stop();
    }
  }, 300_000);

  it("the primary's host gone silent (no reset): requests end at the query timeout, then served again", async () => {
    // An API process's bounds: the client gives up 5 s past the statement timeout.
    const cluster = await startCluster({
      databaseBounds: { statementTimeoutMs: 2_000, acquireTimeoutMs: 2_000 },
    });
    try {
      const load = await startLoad(cluster.stack);
      await load.served();
      cluster.proxy.silence();
      const silenced = Date.now();
      await cluster.primary.db.stop('immediate');
      await cluster.failOver();
      await load.served(Date.now());
      const answers = await load.stop();
      await expectOnlyServedOrUnavailable(cluster.stack, answers);
      report('primary silent', answers, silenced);
    } finally {
      await cluster.stop();
    }
  }, 300_000);
});
