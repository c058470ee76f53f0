import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import {
  announceThrough,
  closeApp,
  createDatabase,
  createLogger,
  createMessageBus,
  EventBus,
  freePort,
  listen,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from '@muse/core';
import { createChatApp } from '@muse/chat-api';
import { startStrandedGenerations } from '@muse/content-api';
import { startTestStack, type TestStack } from './support/stack.ts';
import { createTestUser } from './support/content.ts';
import { createGenerator } from './support/generation.ts';
import { startFakeOpenAi } from './support/fakes/openai.ts';
import type { FakeServer } from './support/fakes/server.ts';
import { developmentDouble, paymentKit } from './support/payments.ts';
import { FrameChecker, wsClient } from './support/sockets.ts';
import { makeOrganization, makeUser, waitUntil, type TestUser } from '@muse/test-support/chat';

/** Debian's Postgres: the embedded package ships no pg_basebackup (CI: .ci/postgres-tools.sh). */
const PG_BIN = '/usr/lib/postgresql/15/bin';
const binaries = { initdb: `${PG_BIN}/initdb`, postgres: `${PG_BIN}/postgres` };
/** A request that has not answered by then counts as a hang. */
const REQUEST_BOUND_MS = 30_000;
/**
 * Polls wait this long before their heartbeat, far past the bound below: a poll answers within
 * the bound only because a wake-up reached it, not because its heartbeat came.
 */
const HEARTBEAT_MS = 300_000;
/**
 * A scenario's own bound: above the sum of its waits (the load, then up to 60 s for the queue, 60 s
 * for the socket and 180 s for the generations), so a slow step fails with its own message.
 */
const SCENARIO_LIMIT_MS = 600_000;
/** How long a message may take to reach a waiting poll after a failover (the bus notices and re-listens). */
const WAKE_BOUND_MS = 60_000;
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
/** A Postgres server of its own in `dir`; `prepare` fills the directory first (a base backup). */
async function startServer(dir: string, prepare?: () => void): Promise<Server> {
  const owner = postgresOwner();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (owner) await chown(dir, owner.uid, owner.gid);
  const port = await freePort();
  prepare?.();
  return { db: await startEmbeddedPostgres({ dataDir: dir, port, logger, binaries }), port, dir };
}

async function stopServer(server: Server): Promise<void> {
  await server.db.stop();
  await rm(server.dir, { recursive: true, force: true });
}

const serverDir = (name: string) =>
  path.join(os.tmpdir(), `muse-failover-${randomBytes(4).toString('hex')}-${name}`);

async function startCluster(stackOptions: Parameters<typeof startTestStack>[1] = {}) {
  const owner = postgresOwner();
  const primary = await startServer(serverDir('primary'));
  const standbyDir = serverDir('standby');
  const standby = await startServer(standbyDir, () => {
    const copy = spawnSync(
      `${PG_BIN}/pg_basebackup`,
      [
        ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'muse', '-D', standbyDir],
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
    // Every payment of the load is one user's; those left unpaid by a 503 stay open.
    { MUSE_CHAT_HEARTBEAT_MS: String(HEARTBEAT_MS), MUSE_PAYMENT_MAX_OPEN_ORDERS: '1000000' },
    { ...stackOptions, adminDatabaseUrl: `postgres://muse:muse@127.0.0.1:${proxy.port}/postgres` },
  );
  await stack.startWorker();
  // The generations' upstream (an OpenAI-compatible fake); it outlives the load, as its workflows do.
  const upstream = await startFakeOpenAi(UPSTREAM_KEY);
  return {
    primary,
    standby,
    proxy,
    stack,
    upstream,
    /** Promotes the standby and points the proxy at it. */
    async failOver(): Promise<void> {
      await adminQuery(standby.db.adminUrl, 'SELECT pg_promote()');
      proxy.moveTo(standby.port);
    },
    async stop(): Promise<void> {
      await stack.stop();
      await upstream.close();
      await proxy.close();
      for (const server of [standby, primary]) await stopServer(server);
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

/** The fake upstream's API key; a generator with another one fails (401), and its charge is refunded. */
const UPSTREAM_KEY = 'sk-failover';
/** Credits the load's user starts with: far more than its generations cost. */
const INITIAL_BALANCE = 1_000_000;
/** What every kind of request answers when served. */
const SERVED: Record<string, number> = {
  'content read': 200,
  'content write': 201,
  'chat send': 200,
  'chat read': 200,
  'generation submit': 202,
  'payment order': 201,
  'payment paid': 200,
  'conversation post': 201,
};

/**
 * Four clients in a loop over both APIs' reads and writes: content reads and writes, generation
 * submits (run by the stack's Temporal worker against the fake upstream, every other one failing
 * there), payment orders paid at once with the development
 * provider, chat sends (each with a unique content, to the sender itself) and reads, messages
 * posted to a conversation (each unique); each request bounded by REQUEST_BOUND_MS, and a request
 * that fails without an answer has status 0. Beside them, the chat user's event queue is
 * long-polled and a WebSocket is open on the conversation throughout.
 */
async function startLoad(stack: TestStack, upstream: FakeServer) {
  const user = await createTestUser(stack, { balance: INITIAL_BALANCE });
  const admin = await createTestUser(stack, { admin: true });
  // Every other generation fails upstream (a wrong key): the refunds run under the fault too.
  const generators = await Promise.all(
    [UPSTREAM_KEY, 'sk-refused'].map((apiKey) =>
      createGenerator(stack, admin, {
        kind: 'text',
        type: 'openai',
        base_cost: 3,
        config: { base_url: upstream.url, model: 'fake-model', max_attempts: 2, request_timeout_seconds: 5 },
        secrets: { api_key: apiKey },
      }),
    ),
  );
  let submits = 0;
  const payments = paymentKit(stack, admin);
  await payments.configure((await developmentDouble()).settings());
  const bundle = await payments.createBundle({ credits: 100, price_cents: 990 });
  await makeOrganization(stack);
  const chatUser = await makeUser(stack);
  const chatAuth = basic(chatUser);
  const bounded = () => ({ signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
  const json = (body: unknown) => ({
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...bounded(),
  });
  const answers: Answer[] = [];
  /** File ids of the generations the API accepted (202). */
  const accepted: string[] = [];
  /** Payments whose pay link answered 200: each credited once. */
  const paid: string[] = [];
  const conversation = await fetch(`${stack.contentUrl}/api/v1/conversations`, json({ title: 'Failover' }));
  expect(conversation.status).toBe(201);
  const conversationId = ((await conversation.json()) as { id: string }).id;
  const checker = await FrameChecker.load(stack.contentUrl);
  const socket = wsClient(stack.contentUrl, conversationId, user.token, checker);
  await socket.next((frame) => frame.type === 'ready');
  let sent = 0;
  let posted = 0;
  /** Sends one request and records its answer; the body is handed on when the answer is the served one. */
  const record = async (name: string, run: () => Promise<Response>, content?: string) => {
    const answer: Answer = {
      name,
      status: 0,
      retryAfter: null,
      started: Date.now(),
      at: 0,
      body: '',
      content,
    };
    try {
      const response = await run();
      answer.status = response.status;
      answer.retryAfter = response.headers.get('retry-after');
      answer.body = await response.text();
    } catch (error) {
      answer.body = String(error); // a hang past the bound, or a dropped connection
    }
    answer.at = Date.now();
    answers.push(answer);
    return answer.status === SERVED[name] ? (JSON.parse(answer.body) as Record<string, unknown>) : undefined;
  };
  const steps: (() => Promise<unknown>)[] = [
    () =>
      record('content read', () =>
        fetch(`${stack.contentUrl}/api/v1/users/me`, { headers: user.headers, ...bounded() }),
      ),
    () =>
      record('content write', () =>
        fetch(`${stack.contentUrl}/api/v1/characters`, json({ name: 'Failover' })),
      ),
    async () => {
      const content = `failover message ${(sent += 1)}`;
      await record(
        'chat send',
        () =>
          fetch(`${stack.chatUrl}/api/v1/messages`, {
            method: 'POST',
            headers: { authorization: chatAuth, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ type: 'private', to: JSON.stringify([chatUser.id]), content }),
            ...bounded(),
          }),
        content,
      );
    },
    () =>
      record('chat read', () =>
        fetch(`${stack.chatUrl}/api/v1/users/me`, { headers: { authorization: chatAuth }, ...bounded() }),
      ),
    async () => {
      const submitted = await record('generation submit', () =>
        fetch(
          `${stack.contentUrl}/api/v1/generations/texts`,
          json({ generator_id: generators[(submits += 1) % 2], prompt: 'failover load' }),
        ),
      );
      if (submitted) accepted.push(...(submitted.file_ids as string[]));
    },
    async () => {
      const order = await record('payment order', () =>
        fetch(`${stack.contentUrl}/api/v1/payments`, json({ bundle_id: bundle.id })),
      );
      if (!order) return;
      // The payer opens the pay link at once: the development provider's notification.
      if (await record('payment paid', () => fetch(order.code_url as string, bounded())))
        paid.push(order.id as string);
    },
    async () => {
      const content = `failover post ${(posted += 1)}`;
      await record(
        'conversation post',
        () =>
          fetch(
            `${stack.contentUrl}/api/v1/conversations/${conversationId}/messages`,
            json({ role: 'user', content }),
          ),
        content,
      );
    },
  ];
  let loading = true;
  const loop = async (offset: number) => {
    for (let i = offset; loading; i += 1) await steps[i % steps.length]!();
  };
  // The queue exists before the first message is sent: each one acknowledged must reach it.
  const queue = await pollQueue(stack, chatUser);
  const running = Promise.all([0, 1, 2, 3].map(loop));
  const kinds = Object.keys(SERVED);
  /** Every kind of request answered as served at least `count` times, of those started after `after`. */
  const served = (after = 0, count = 3) =>
    waitUntil(
      () =>
        kinds.every(
          (name) =>
            answers.filter((a) => a.name === name && a.started > after && a.status === SERVED[name]).length >=
            count,
        ),
      'every kind of request to be served',
      120_000,
    );
  return {
    user,
    answers,
    accepted,
    paid,
    queue,
    socket,
    checker,
    served,
    async stop(): Promise<Answer[]> {
      loading = false;
      await running;
      return answers;
    },
  };
}

/**
 * The chat user's event queue, long-polled from now on: every message event it hands out, in
 * order, and every poll's answer (2xx or 503, like any request).
 */
async function pollQueue(stack: TestStack, chatUser: TestUser) {
  const registered = await fetch(`${stack.chatUrl}/api/v1/register`, {
    method: 'POST',
    headers: { authorization: basic(chatUser), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ event_types: JSON.stringify(['message']) }),
  });
  expect(registered.status).toBe(200);
  const { queue_id: queueId, last_event_id: first } = (await registered.json()) as {
    queue_id: string;
    last_event_id: number;
  };
  const messages: { id: number; content: string }[] = [];
  const polls: { status: number; retryAfter: string | null; body: string }[] = [];
  const stopped = new AbortController();
  const polling = (async () => {
    for (let last = first; !stopped.signal.aborted;) {
      try {
        const response = await fetch(
          `${stack.chatUrl}/api/v1/events?queue_id=${queueId}&last_event_id=${last}`,
          { headers: { authorization: basic(chatUser) }, signal: stopped.signal },
        );
        const body = await response.text();
        polls.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body });
        if (response.status !== 200) {
          // Unavailable: poll again after the pause the answer asks for (bounded, the test goes on meanwhile).
          await new Promise((resolve) =>
            setTimeout(resolve, Math.min(1000, Number(response.headers.get('retry-after')) * 1000)),
          );
          continue;
        }
        const { events } = JSON.parse(body) as {
          events: { id: number; type: string; message?: { id: number; content: string } }[];
        };
        for (const event of events) {
          // The content as sent: events carry it rendered (`<p>…</p>`).
          if (event.message)
            messages.push({ id: event.message.id, content: event.message.content.replace(/<[^>]*>/g, '') });
          last = Math.max(last, event.id);
        }
      } catch (error) {
        if (!stopped.signal.aborted) polls.push({ status: 0, retryAfter: null, body: String(error) });
      }
    }
  })();
  return {
    messages,
    polls,
    async stop(): Promise<void> {
      stopped.abort();
      await polling;
    },
  };
}

/** Every answer 2xx or 503 with Retry-After; every acknowledged message stored, none twice. */
async function expectOnlyServedOrUnavailable(stack: TestStack, answers: Answer[]): Promise<void> {
  const unexpected = answers.filter((a) => a.status !== SERVED[a.name] && a.status !== 503);
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

/**
 * What the load left once the switch is over: its queue got every acknowledged message once
 * (polls answered 200 or 503 only), every accepted generation ended (completed, or failed and
 * refunded once), every payment paid was credited once and no other, and the user's balance is
 * its starting credits plus its ledger.
 */
async function expectNothingLostOrDoubled(
  stack: TestStack,
  load: Awaited<ReturnType<typeof startLoad>>,
  answers: Answer[],
): Promise<Record<string, number>> {
  const db = stack.database.db;
  const select = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
    db.query<T>(sql, { replacements, type: QueryTypes.SELECT });

  // The queue: every acknowledged message reaches it, none twice.
  const acknowledged = answers
    .filter((a) => a.name === 'chat send' && a.status === 200)
    .map((a) => a.content!);
  await waitUntil(
    () => acknowledged.every((content) => load.queue.messages.some((m) => m.content === content)),
    'every acknowledged message in the event queue',
    60_000,
  );
  await load.queue.stop();
  const ids = load.queue.messages.map((m) => m.id);
  expect(
    ids.filter((id, index) => ids.indexOf(id) !== index),
    'messages the queue handed out twice',
  ).toEqual([]);
  const badPolls = load.queue.polls.filter(
    (poll) => !(poll.status === 200 || (poll.status === 503 && Number(poll.retryAfter) > 0)),
  );
  expect(badPolls.map((poll) => `${poll.status} ${poll.body}`)).toEqual([]);

  // The socket: still open, and every acknowledged post reached it once, in documented frames.
  const posts = answers
    .filter((a) => a.name === 'conversation post' && a.status === 201)
    .map((a) => a.content);
  const onSocket = () =>
    load.socket.frames
      .filter((frame) => frame.type === 'message')
      .map((frame) => frame.message as { id: string; content: string });
  await waitUntil(
    () => posts.every((content) => onSocket().some((message) => message.content === content)),
    'every acknowledged post on the socket',
    60_000,
  );
  const delivered = onSocket().map((message) => message.id);
  expect(
    delivered.filter((id, index) => delivered.indexOf(id) !== index),
    'posts the socket delivered twice',
  ).toEqual([]);
  expect(load.socket.ws.readyState).toBe(load.socket.ws.OPEN);
  expect(load.checker.violations).toEqual([]);
  load.socket.close();

  // Generations: stored tasks that answered 503 on a lost commit are started by the reconciler.
  await startStrandedGenerations({ ...stack, db }, 0);
  await waitUntil(
    async () =>
      (
        await select<{ open: string }>(
          "SELECT count(*) AS open FROM content.generations WHERE owner_id = :id AND status NOT IN ('completed', 'failed')",
          { id: load.user.id },
        )
      )[0]!.open === '0',
    'every stored generation to end',
    180_000,
  );
  const generations = await select<{ status: string; file_ids: string[]; charged: boolean; refunds: string }>(
    `SELECT g.status, g.file_ids, g.charge_id IS NOT NULL AS charged,
            (SELECT count(*) FROM content.transaction_logs r WHERE r.kind = 'refund' AND r.reverses_id = g.charge_id) AS refunds
       FROM content.generations g WHERE g.owner_id = :id`,
    { id: load.user.id },
  );
  expect(generations.flatMap((g) => g.file_ids)).toEqual(expect.arrayContaining(load.accepted));
  const refundsOwed = (g: { status: string; charged: boolean }) =>
    g.status === 'failed' && g.charged ? '1' : '0';
  expect(
    generations.filter((g) => g.refunds !== refundsOwed(g)),
    'generations refunded other than once when failed, or refunded when completed',
  ).toEqual([]);

  // Payments: paid ones credited once, the others not at all.
  const orders = await select<{ id: string; status: string; credits: number; topups: string }>(
    `SELECT p.id, p.status, p.credits,
            (SELECT count(*) FROM content.transaction_logs t WHERE t.kind = 'topup' AND t.reference = 'payment:' || p.id) AS topups
       FROM content.payments p WHERE p.owner_id = :id`,
    { id: load.user.id },
  );
  expect(orders.filter((o) => load.paid.includes(o.id)).map((o) => o.status)).toEqual(
    load.paid.map(() => 'paid'),
  );
  expect(orders.filter((o) => o.topups !== (o.status === 'paid' ? '1' : '0'))).toEqual([]);

  // The balance is the starting credits plus every ledger entry.
  const [ledger] = await select<{ balance: string; moved: string }>(
    `SELECT u.balance, (SELECT COALESCE(sum(amount), 0) FROM content.transaction_logs WHERE owner_id = u.id) AS moved
       FROM content.users u WHERE u.id = :id`,
    { id: load.user.id },
  );
  expect(Number(ledger!.balance)).toBe(INITIAL_BALANCE + Number(ledger!.moved));
  return {
    generations: generations.length,
    completed: generations.filter((g) => g.status === 'completed').length,
    failed: generations.filter((g) => g.status === 'failed').length,
    refunded: generations.filter((g) => g.refunds === '1').length,
    charged: generations.filter((g) => g.charged).length,
    paid: orders.filter((o) => o.status === 'paid').length,
    queued: load.queue.messages.length,
    'on the socket': delivered.length,
  };
}

/**
 * One line per scenario. The time to recovery counts from the fault to the first served request
 * sent after the switch: requests started between the fault and the switch can still be served
 * (a SIGKILLed postmaster's backends finish what they are doing), so they say nothing about it.
 */
function report(
  scenario: string,
  answers: Answer[],
  times: { fault: number; switched: number },
  checks: Record<string, number>,
): void {
  const first = (kinds: string[]) => {
    const served = answers.find(
      (a) => kinds.includes(a.name) && a.started > times.switched && a.status === SERVED[a.name],
    );
    return served ? `${served.at - times.fault} ms` : '—';
  };
  const count = (status: number) => answers.filter((a) => a.status === status).length;
  console.log(
    `${scenario}: ${answers.length} requests, ${count(503)} answered 503, ${count(0)} unanswered; ` +
      `switch ${times.switched - times.fault} ms after the fault, first success ` +
      `${first(Object.keys(SERVED))} after the fault, first write ` +
      `${first(['content write', 'chat send', 'generation submit', 'payment order', 'conversation post'])}; ` +
      Object.entries(checks)
        .map(([name, value]) => `${name} ${value}`)
        .join(', '),
  );
}

/**
 * Another messaging-API process on the stack's database, with its own pool of one and its own
 * bus: started after a failover, it listens on the new primary from its first connection.
 */
async function startChatProcess(stack: TestStack): Promise<{ url: string; stop(): Promise<void> }> {
  const db = createDatabase(stack.database.url, undefined, { poolMax: 1 });
  const bus = await createMessageBus(stack.config, stack.database.url, stack.logger);
  const announcer = announceThrough(db, bus, stack.logger);
  const app = createChatApp({ ...stack, db, bus });
  const server = await listen(app, {
    host: '127.0.0.1',
    port: 0,
    logger: stack.logger,
    shutdownTimeoutMs: 1000,
  });
  return {
    url: server.url,
    async stop() {
      await server.close();
      await closeApp(app);
      await announcer.flush();
      await bus.close();
      await db.close();
    },
  };
}

const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;

/**
 * A direct message from `sender` through `sendVia` reaches `receiver`'s poll, already waiting on
 * `pollVia`: only a wake-up over the bus answers it before its heartbeat (HEARTBEAT_MS).
 */
async function expectWoken(
  stack: TestStack,
  route: { sender: TestUser; sendVia: string; receiver: TestUser; pollVia: string },
): Promise<void> {
  const { sender, receiver } = route;
  const registered = await fetch(`${route.pollVia}/api/v1/register`, {
    method: 'POST',
    headers: { authorization: basic(receiver), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ event_types: JSON.stringify(['message']) }),
  });
  expect(registered.status).toBe(200);
  const queue = (await registered.json()) as { queue_id: string; last_event_id: number };
  const polledAt = async () =>
    (
      await stack.database.db.query<{ at: string }>(
        'SELECT last_polled_at::text AS at FROM chat.event_queues WHERE id = :id',
        { replacements: { id: queue.queue_id }, type: QueryTypes.SELECT },
      )
    )[0]?.at;
  const registeredAt = await polledAt();
  const content = `woken after the failover ${randomBytes(4).toString('hex')}`;
  const signal = AbortSignal.timeout(WAKE_BOUND_MS);
  const delivered = (async () => {
    for (let last = queue.last_event_id; ;) {
      const polled = await fetch(
        `${route.pollVia}/api/v1/events?queue_id=${queue.queue_id}&last_event_id=${last}`,
        { headers: { authorization: basic(receiver) }, signal },
      );
      const { events } = (await polled.json()) as {
        events: { id: number; type: string; message?: { content: string } }[];
      };
      if (events.some((event) => event.message?.content.includes(content))) return;
      last = Math.max(last, ...events.map((event) => event.id));
    }
  })();
  // The poll has read the (empty) queue and waits: the message is written after that read.
  await waitUntil(async () => (await polledAt()) !== registeredAt, 'the poll to wait', WAKE_BOUND_MS);
  const sent = await fetch(`${route.sendVia}/api/v1/messages`, {
    method: 'POST',
    headers: { authorization: basic(sender), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ type: 'private', to: JSON.stringify([receiver.id]), content }),
  });
  expect(sent.status).toBe(200);
  await expect(
    delivered,
    'a waiting poll woken by a message sent through another process',
  ).resolves.toBeUndefined();
}

/**
 * After the switch, messages between the stack's process (its bus connected before the fault) and
 * a process started after it (connected to the new primary) wake the receivers' waiting polls
 * both ways: the old bus connection was noticed and replaced.
 */
async function expectBusFollowsPrimary(stack: TestStack): Promise<void> {
  const late = await startChatProcess(stack);
  try {
    const [alice, bob] = [await makeUser(stack), await makeUser(stack)];
    await expectWoken(stack, { sender: alice, sendVia: stack.chatUrl, receiver: bob, pollVia: late.url });
    await expectWoken(stack, { sender: bob, sendVia: late.url, receiver: alice, pollVia: stack.chatUrl });
  } finally {
    await late.stop();
  }
}

/**
 * One scenario: a cluster under the mixed load, `fault` done to it (answering when it struck), the
 * standby promoted and the proxy moved; then the load served again, the bus following the new
 * primary, only served or 503 answers, and nothing lost or doubled.
 */
async function failOverAfter(
  scenario: string,
  fault: (cluster: Cluster, load: Load) => Promise<number>,
  stackOptions?: Parameters<typeof startCluster>[0],
): Promise<void> {
  const cluster = await startCluster(stackOptions);
  running.add(cluster);
  try {
    const load = await startLoad(cluster.stack, cluster.upstream);
    await load.served();
    const struck = await fault(cluster, load);
    await cluster.failOver();
    const switched = Date.now();
    await load.served(Date.now());
    const answers = await load.stop();
    await expectBusFollowsPrimary(cluster.stack);
    await expectOnlyServedOrUnavailable(cluster.stack, answers);
    report(
      scenario,
      answers,
      { fault: struck, switched },
      await expectNothingLostOrDoubled(cluster.stack, load, answers),
    );
  } finally {
    running.delete(cluster);
    await cluster.stop();
  }
}

/**
 * Clusters a scenario started and did not stop: one that ran past the runner's limit never reaches
 * its `finally`, and its two Postgres servers would outlive the run.
 */
const running = new Set<Cluster>();
afterEach(async () => {
  for (const cluster of running) await cluster.stop();
  running.clear();
});

type Cluster = Awaited<ReturnType<typeof startCluster>>;
type Load = Awaited<ReturnType<typeof startLoad>>;

/**
 * A Postgres failover as production meets it (CloudNativePG, Patroni, a managed service): the
 * standby is promoted and the read-write endpoint moves to it, under a steady mixed load on both
 * APIs and the Temporal worker (the suites' pool of one connection). Every request answers as
 * served or 503 with Retry-After (never 500, never a hang), both APIs serve again without a
 * restart, the bus follows the new primary (a process's waiting poll is woken by a message sent
 * through another), no chat message is stored twice or lost from a queue, every accepted
 * generation ends charged once (refunded once when it failed), every paid order is credited
 * once, and the balance is the ledger.
 */
describe('a database failover', () => {
  it(
    'the old primary still up but read-only: its pooled connections are dropped, not reused',
    () =>
      failOverAfter('old primary read-only', async (cluster) => {
        // What a demoted primary answers every write on a connection still open to it: 25006.
        await adminQuery(cluster.primary.db.adminUrl, 'ALTER SYSTEM SET default_transaction_read_only = on');
        await adminQuery(cluster.primary.db.adminUrl, 'SELECT pg_reload_conf()');
        return Date.now();
      }),
    SCENARIO_LIMIT_MS,
  );

  it(
    'the primary SIGKILLed: 503 until the standby takes over, then served again',
    () =>
      failOverAfter('primary killed', async (cluster, load) => {
        const pidFile = await readFile(path.join(cluster.primary.dir, 'postmaster.pid'), 'utf8');
        process.kill(Number(pidFile.split('\n')[0]), 'SIGKILL');
        const killed = Date.now();
        await waitUntil(
          () => load.answers.filter((a) => a.started > killed && a.status === 503).length >= 4,
          'answers while no primary is up',
          60_000,
        );
        return killed;
      }),
    SCENARIO_LIMIT_MS,
  );

  it(
    "the primary's host gone silent (no reset): requests end at the query timeout, then served again",
    () =>
      failOverAfter(
        'primary silent',
        async (cluster) => {
          cluster.proxy.silence();
          const silenced = Date.now();
          await cluster.primary.db.stop('immediate');
          return silenced;
        },
        // An API process's bounds: the client gives up 5 s past the statement timeout.
        { databaseBounds: { statementTimeoutMs: 2_000, acquireTimeoutMs: 2_000 } },
      ),
    SCENARIO_LIMIT_MS,
  );
});

/**
 * The bus's part of the read-only scenario, alone: a process whose bus connection stayed on the
 * old primary (up, read-only) publishes after the endpoint moved. Postgres takes `pg_notify` on
 * a read-only server, so without a check the notification would reach only the old server's
 * listeners, never the processes already on the new primary.
 */
describe('the bus after a switch to a new primary', () => {
  it('a notification sent on the old primary, read-only now, is sent again on a new connection, which reaches the new one', async () => {
    const [old, next] = [await startServer(serverDir('old')), await startServer(serverDir('new'))];
    const proxy = await startProxy(old.port);
    const publisher = new EventBus(`postgres://muse:muse@127.0.0.1:${proxy.port}/postgres`, logger);
    const listener = new EventBus(next.db.adminUrl, logger);
    try {
      await publisher.publish('warm-up', {}); // its connection is made, to the old primary
      const seen: unknown[] = [];
      await listener.subscribe('moved', (payload) => seen.push(payload)); // resolves once LISTEN is in
      await adminQuery(old.db.adminUrl, 'ALTER SYSTEM SET default_transaction_read_only = on');
      await adminQuery(old.db.adminUrl, 'SELECT pg_reload_conf()');
      // New sessions see the setting once the postmaster has reloaded and signalled the sessions open.
      await waitUntil(
        async () =>
          (
            await adminQuery<{ value: string }>(
              old.db.adminUrl,
              "SELECT current_setting('default_transaction_read_only') AS value",
            )
          )[0]?.value === 'on',
        'the old primary to turn read-only',
        30_000,
      );
      proxy.moveTo(next.port);

      await publisher.publish('moved', { after: 'switch' });
      await expect.poll(() => seen, { timeout: WAKE_BOUND_MS }).toEqual([{ after: 'switch' }]);
    } finally {
      await Promise.all([publisher.close(), listener.close(), proxy.close()]);
      for (const server of [next, old]) await stopServer(server);
    }
  });
});
