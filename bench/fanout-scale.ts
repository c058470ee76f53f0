/**
 * Fan-out by channel size: for 10, 100, 1,000 and 10,000 members, each with an event queue, one
 * member sending channel messages alone and then 8 members sending at once. Per size: send
 * latency (p50/max), messages/s, errors, rows and WAL bytes per message, and the time from a
 * send's answer until a waiting poll of another member is answered with it. Beside it, the same
 * writes by a bare `pg` script (the message row, and its two log entries: the sender's, and the
 * one naming the message for everyone else; no flags rows, as a channel send writes none), as a
 * ratio. Then, per size, the CPU per message of the chat API, Postgres and the senders (this
 * process), the cores one and eight senders keep busy, the rate all cores would give at the eight
 * senders' CPU per message (the machine's ceiling, as a multiple of one sender), and what the eight
 * senders' database sessions wait on (a lock there would mean senders queue on each other).
 * Last, the commit rate of 8 writers with a listener, with the wake-up (pg_notify) inside the
 * transaction against after the commit, batched.
 *
 *   node bench/fanout-scale.ts [--sizes 10,100,1000,10000] [--messages 20]
 *
 * Rows per message are counted in the tables a send writes (the organization's messages, their
 * flags rows and its log entries), not read from Postgres' statistics, which backends publish up
 * to 10 s late. `BENCH_CPU_PROF=<dir>` writes a CPU profile of the chat API there when it stops.
 */
import http from 'node:http';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { cpuMeter, startBenchStack, startChatApi, type BenchStack } from './lib.ts';
import { basic, form, sendOver } from './chat-client.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10,100,1000,10000' },
    messages: { type: 'string', default: '20' },
  },
});
const sizes = values.sizes.split(',').map(Number);
const messages = Number(values.messages);
const SENDERS = 8;
const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });

const send = (port: number, method: string, path: string, headers: Record<string, string>, body?: string) =>
  sendOver(agent, port, method, path, headers, body);
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

interface Member {
  headers: Record<string, string>;
  queueId: string;
}

interface Organization {
  realmId: number;
  members: Member[];
}

/** An organization of `size` members in one channel, each with a queue registered over the API. */
async function organization(stack: BenchStack, port: number, size: number): Promise<Organization> {
  const subdomain = `scale${size}x${Date.now()}`;
  const realm = await createOrganization(stack.db, { subdomain, name: `Scale ${size}` });
  const owner = await createChatUser(stack.db, {
    subdomain,
    email: `owner@${subdomain}.example.com`,
    fullName: 'Owner',
    role: 100,
  });
  const users = await stack.db.query<{ id: number; delivery_email: string; api_key: string }>(
    `INSERT INTO chat.users (realm_id, delivery_email, full_name, api_key)
     SELECT :realm, 'm' || g || '@${subdomain}.example.com', 'Member ' || g, md5(random()::text || g)
       FROM generate_series(1, :n) AS g RETURNING id, delivery_email, api_key`,
    { replacements: { realm: realm.id, n: size - 1 }, type: QueryTypes.SELECT },
  );
  const all = [{ id: owner.id, delivery_email: owner.delivery_email, api_key: owner.api_key }, ...users];
  const host = { host: `${subdomain}.localhost` };
  const created = await send(
    port,
    'POST',
    '/api/v1/users/me/subscriptions',
    { ...basic(owner.delivery_email, owner.api_key), ...host },
    form({ subscriptions: '[{"name":"all"}]' }),
  );
  if (created.status !== 200) throw new Error(`subscribe: ${created.status} ${created.body}`);
  await stack.db.query(
    `INSERT INTO chat.subscriptions (user_id, stream_id, color)
     SELECT u.id, s.id, '#76ce90' FROM chat.users u JOIN chat.streams s ON s.realm_id = u.realm_id AND s.name = 'all'
     WHERE u.realm_id = :realm AND u.id <> :owner`,
    { replacements: { realm: realm.id, owner: owner.id } },
  );
  const members: Member[] = [];
  for (let i = 0; i < all.length; i += 50) {
    members.push(
      ...(await Promise.all(
        all.slice(i, i + 50).map(async (user) => {
          const headers = { ...basic(user.delivery_email, user.api_key), ...host };
          const answer = await send(
            port,
            'POST',
            '/api/v1/register',
            headers,
            form({ event_types: '["message"]', fetch_event_types: '[]' }),
          );
          if (answer.status !== 200) throw new Error(`register: ${answer.status} ${answer.body}`);
          return { headers, queueId: (JSON.parse(answer.body) as { queue_id: string }).queue_id };
        }),
      )),
    );
  }
  return { realmId: realm.id, members };
}

async function walBytes(client: pg.Client): Promise<bigint> {
  const { rows } = await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() - $1::pg_lsn AS lsn', [
    '0/0',
  ]);
  return BigInt(rows[0]!.lsn);
}

/** Rows the organization's sends have written so far: messages, flags rows and log entries. */
async function rowsOf(client: pg.Client, realmId: number): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM chat.messages WHERE realm_id = $1)
          + (SELECT count(*) FROM chat.user_messages um JOIN chat.messages m ON m.id = um.message_id
             WHERE m.realm_id = $1)
          + (SELECT count(*) FROM chat.event_log WHERE realm_id = $1) AS n`,
    [realmId],
  );
  return Number(rows[0]!.n);
}

interface Run {
  latencies: number[];
  errors: number;
  seconds: number;
  /** CPU ms per message of the chat API, Postgres and this process (the senders), from /proc. */
  cpu: { api: number; postgres: number; bench: number };
}

/** The processes whose CPU a send costs on this machine. */
type CpuSources = { api: number; postgres: () => number; bench: number };

async function sendAll(port: number, senders: Member[], perSender: number, cpuOf: CpuSources): Promise<Run> {
  const latencies: number[] = [];
  let errors = 0;
  const cpu = cpuMeter(cpuOf);
  const started = performance.now();
  await Promise.all(
    senders.map(async (sender, s) => {
      for (let n = 0; n < perSender; n++) {
        const t0 = performance.now();
        const answer = await send(
          port,
          'POST',
          '/api/v1/messages',
          sender.headers,
          form({ type: 'stream', to: 'all', topic: 'bench', content: `message ${s}/${n}` }),
        );
        latencies.push(performance.now() - t0);
        if (answer.status !== 200) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = cpu();
  const perMessage = (ms: number) => ms / latencies.length;
  return {
    latencies: latencies.sort((a, b) => a - b),
    errors,
    seconds,
    cpu: { api: perMessage(used.api!), postgres: perMessage(used.postgres!), bench: perMessage(used.bench!) },
  };
}

/**
 * What the senders' database sessions are doing during a run, sampled every few milliseconds from
 * `pg_stat_activity`: a share per wait event type ("running" when none: on the CPU), over the
 * sessions in a transaction or a statement. Lock waits here would mean senders queue on each other.
 */
function sampleWaits(url: string): () => Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const client = new pg.Client({ connectionString: url });
  let sampling = true;
  const done = (async () => {
    await client.connect();
    while (sampling) {
      const { rows } = await client.query<{ wait: string }>(
        `SELECT coalesce(wait_event_type, 'running') AS wait FROM pg_stat_activity
          WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'`,
      );
      for (const { wait } of rows) counts.set(wait, (counts.get(wait) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await client.end();
  })();
  return async () => {
    sampling = false;
    await done;
    return counts;
  };
}

/** `Client 62%, running 21%, …`: each wait type's share of the samples, largest first. */
function shares(counts: Map<string, number>): string {
  const total = [...counts.values()].reduce((a, b) => a + b, 0) || 1;
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([wait, n]) => `${wait} ${((100 * n) / total).toFixed(0)}%`)
    .join(', ');
}

const cpuPerMessage = ({ cpu }: Run) => cpu.api + cpu.postgres + cpu.bench;
const cpuOfMessage = (run: Run) =>
  `${run.cpu.api.toFixed(1)} + ${run.cpu.postgres.toFixed(1)} + ${run.cpu.bench.toFixed(1)}`;

/** Messages/s that `cores` fully busy would give at a run's CPU per message: the machine's ceiling. */
const ceilingRate = (run: Run, cores: number) => (cores * 1000) / cpuPerMessage(run);

/** The cores a run kept busy on average: its messages' CPU over their wall time. */
function coresBusy(run: Run): number {
  return cpuPerMessage(run) / ((run.seconds * 1000) / run.latencies.length);
}

/** From a send's answer to the answer of a poll that was waiting for it. */
async function timeToPoll(port: number, sender: Member, poller: Member): Promise<number> {
  const drained = await send(
    port,
    'GET',
    `/api/v1/events?${form({ queue_id: poller.queueId, dont_block: 'true' })}`,
    poller.headers,
  );
  const events = (JSON.parse(drained.body) as { events: { id: number }[] }).events;
  const last = events.at(-1)?.id ?? -1;
  let answered = 0;
  const poll = send(
    port,
    'GET',
    `/api/v1/events?${form({ queue_id: poller.queueId, last_event_id: String(last) })}`,
    poller.headers,
  ).then(() => (answered = performance.now()));
  await new Promise((resolve) => setTimeout(resolve, 200)); // the poll is waiting
  await send(
    port,
    'POST',
    '/api/v1/messages',
    sender.headers,
    form({ type: 'stream', to: 'all', topic: 'poll', content: 'ping' }),
  );
  const sent = performance.now();
  await poll;
  return answered - sent;
}

/**
 * The same writes in bare SQL as a channel send without mentions (migrations 1070 and 1071): the
 * message row, then its two log entries in one statement, the sender's (one id) and the one
 * naming the message for everyone else. Nothing is read or written per recipient.
 */
async function bareSend(client: pg.Client, body: string): Promise<void> {
  await client.query('BEGIN');
  const { rows } = await client.query<{ id: string }>(
    'INSERT INTO bench_messages (body) VALUES ($1) RETURNING id',
    [body],
  );
  await client.query(
    `INSERT INTO bench_events (user_ids, message_id, event)
     VALUES ('{1}', NULL, jsonb_build_object('body', $1::text)), (NULL, $2, jsonb_build_object('body', $1::text))`,
    [body, rows[0]!.id],
  );
  await client.query('COMMIT');
}

const BARE_BODY = 'x'.repeat(840);

/** `count` bare sends by one client: ms and WAL bytes per message. */
async function bare(client: pg.Client, count: number): Promise<{ ms: number; wal: number }> {
  await client.query(`CREATE TABLE IF NOT EXISTS bench_messages (id bigserial PRIMARY KEY, body text)`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS bench_events (id bigserial PRIMARY KEY, user_ids int[], message_id bigint, event jsonb)`,
  );
  const before = await walBytes(client);
  const started = performance.now();
  for (let n = 0; n < count; n++) await bareSend(client, BARE_BODY);
  const ms = (performance.now() - started) / count;
  return { ms, wal: Number((await walBytes(client)) - before) / count };
}

/** `count` connected `pg` clients (the bare writers of bareEight and commitRate). */
function connectClients(url: string, count: number): Promise<pg.Client[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
}

/** Messages/s of `count` bare sends by each of 8 clients at once (the machine's ceiling for 8 senders). */
async function bareEight(url: string, count: number): Promise<number> {
  const clients = await connectClients(url, SENDERS);
  const started = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let n = 0; n < count; n++) await bareSend(c, BARE_BODY);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const c of clients) await c.end();
  return (SENDERS * count) / seconds;
}

/** Commits/s of 8 writers, one listener, for `ms`: wake-up inside the transaction, after, or none. */
async function commitRate(url: string, mode: 'none' | 'inside' | 'after', ms = 3000): Promise<number> {
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  await listener.query('LISTEN bench_wake');
  listener.on('notification', () => {});
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query(
    'CREATE TABLE IF NOT EXISTS bench_commits (id bigserial PRIMARY KEY, at timestamptz DEFAULT now())',
  );
  const writers = await connectClients(url, SENDERS);
  let commits = 0;
  let pendingWake = false;
  let notifying = Promise.resolve();
  const until = performance.now() + ms;
  const wakeAfter = () => {
    // After commit, batched: one notification per turn of the event loop, whoever committed.
    if (pendingWake) return;
    pendingWake = true;
    setImmediate(() => {
      pendingWake = false;
      notifying = notifying.then(() => setup.query(`SELECT pg_notify('bench_wake', 'x')`)).then(() => {});
    });
  };
  await Promise.all(
    writers.map(async (c) => {
      while (performance.now() < until) {
        await c.query('BEGIN');
        await c.query('INSERT INTO bench_commits DEFAULT VALUES');
        if (mode === 'inside') await c.query(`SELECT pg_notify('bench_wake', 'x')`);
        await c.query('COMMIT');
        if (mode === 'after') wakeAfter();
        commits++;
      }
    }),
  );
  await notifying;
  for (const c of [...writers, listener, setup]) await c.end();
  return commits / (ms / 1000);
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const { port, server } = await startChatApi(stack, { MUSE_CHAT_HEARTBEAT_MS: '600000' });
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  const cpuOf: CpuSources = { api: server.child.pid!, postgres: stack.postgresCpuMs, bench: process.pid };
  const cores = availableParallelism();
  const cpuLines: string[] = [];
  try {
    console.log(
      'members | 1 sender p50/max ms | msgs/s | 8 senders msgs/s (x of 1) | errors | rows/msg | WAL KiB/msg | poll after answer ms | bare pg ms/msg (ratio) | bare WAL KiB/msg | bare 8 writers msgs/s (x of 1)',
    );
    for (const size of sizes) {
      const { realmId, members } = await organization(stack, port, size);
      const perSize = size >= 10_000 ? Math.max(4, Math.floor(messages / 4)) : messages;
      const rows0 = await rowsOf(client, realmId);
      const wal0 = await walBytes(client);
      const one = await sendAll(port, members.slice(0, 1), perSize, cpuOf);
      const wal = Number((await walBytes(client)) - wal0) / perSize;
      const rows = ((await rowsOf(client, realmId)) - rows0) / perSize;
      const waits = sampleWaits(stack.databaseUrl);
      const eight = await sendAll(port, members.slice(0, Math.min(SENDERS, members.length)), perSize, cpuOf);
      const eightWaits = await waits();
      const sent8 = perSize * Math.min(SENDERS, members.length);
      const poll = await timeToPoll(port, members[0]!, members.at(-1)!);
      const base = await bare(client, perSize);
      const base8 = await bareEight(stack.databaseUrl, perSize);
      const rate1 = perSize / one.seconds;
      const rate8 = sent8 / eight.seconds;
      console.log(
        [
          size,
          `${quantile(one.latencies, 0.5).toFixed(1)}/${quantile(one.latencies, 1).toFixed(1)}`,
          rate1.toFixed(1),
          `${rate8.toFixed(1)} (${(rate8 / rate1).toFixed(2)}x)`,
          one.errors + eight.errors,
          rows.toFixed(0),
          (wal / 1024).toFixed(1),
          poll.toFixed(1),
          `${base.ms.toFixed(1)} (${(quantile(one.latencies, 0.5) / base.ms).toFixed(1)}x)`,
          (base.wal / 1024).toFixed(1),
          `${base8.toFixed(1)} (${((base8 * base.ms) / 1000).toFixed(2)}x)`,
        ].join(' | '),
      );
      cpuLines.push(
        `${size} members: CPU ms/msg (API + Postgres + senders): 1 sender ${cpuOfMessage(one)}, ` +
          `keeping ${coresBusy(one).toFixed(2)} of ${cores} cores busy; 8 senders ${cpuOfMessage(eight)}, ` +
          `keeping ${coresBusy(eight).toFixed(2)} busy. At the 8 senders' CPU per message ${cores} cores ` +
          `allow ${(ceilingRate(eight, cores) / rate1).toFixed(2)}x one sender (reached ` +
          `${(rate8 / rate1).toFixed(2)}x). Their database sessions, sampled: ${shares(eightWaits)}`,
      );
    }
    for (const line of cpuLines) console.log(line);
    const none = await commitRate(stack.databaseUrl, 'none');
    const inside = await commitRate(stack.databaseUrl, 'inside');
    const after = await commitRate(stack.databaseUrl, 'after');
    console.log(
      `commits/s, 8 writers, 1 listener: no wake-up ${none.toFixed(0)}; wake-up inside the transaction ` +
        `${inside.toFixed(0)} (${(inside / none).toFixed(2)}x); after commit, batched ${after.toFixed(0)} ` +
        `(${(after / none).toFixed(2)}x)`,
    );
  } finally {
    await client.end();
    await server.stop();
    await stack.stop();
  }
}

await main();
