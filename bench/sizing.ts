/**
 * Sizing: `npm run bench -- sizing` (or `node bench/sizing.ts [--scale 1]`) measures the CPU time
 * one operation costs each part of a deployment — the content API, the messaging API, the worker
 * (each a `muse-server` process of its own), Postgres (every backend, from /proc) and Temporal's
 * dev server — and writes docs/sizing.md from those figures: the cores, pods, Postgres and
 * connections for 1k, 10k and 100k active users under a stated mix, and what breaks first.
 *
 * CPU time, not rates: the figures must hold on a machine shared with other work. Each phase runs
 * N operations a few at a time; from each process's CPU over the phase, what it spends idle over
 * as long (measured before the phases) is taken off, and the rest is divided by N. Postgres also
 * gives its write transactions (transaction ids assigned) and WAL bytes per operation.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { QueryTypes } from 'sequelize';
import WebSocket from 'ws';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { createTokenSigner } from '@muse/content-api';
import { basic, form, sendOver } from './chat-client.ts';
import { benchAccount, cpuMeter, freePort, ownChildNamed, startBenchStack, startProcess } from './lib.ts';
import { writeGuide, type Figures, type OperationCost } from './sizing-guide.ts';

const { values } = parseArgs({
  options: {
    // Multiplies every phase's count of operations (0.5 for a quick look, 2 for steadier figures).
    scale: { type: 'string', default: '1' },
    receivers: { type: 'string', default: '50' },
    out: { type: 'string', default: fileURLToPath(new URL('../docs/sizing.md', import.meta.url)) },
  },
});
const scale = Number(values.scale);
const RECEIVERS = Number(values.receivers);
const count = (n: number) => Math.max(5, Math.round(n * scale));
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));
const BUILTIN_TEXT = '00000000-0000-4000-8000-000000000003';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const loadSamples: number[] = [];
const loadSampler = setInterval(() => loadSamples.push(os.loadavg()[0]!), 5000);
loadSamples.push(os.loadavg()[0]!);

const stack = await startBenchStack({ temporal: true });
const { db } = stack;
const env = { ...stack.serverEnv, TEMPORAL_TASK_QUEUE: 'sizing', MUSE_DATA_DIR: stack.workDir };
const subdomain = 'sizing';

// Verification codes reach this process's webhook receiver (as in auth.ts); limits are raised so
// that logins measure work, not refusals.
const codes = new Map<string, string>();
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const { phone, code } = JSON.parse(body) as { phone: string; code: string };
    codes.set(phone, code);
    res.end('{}');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
await db.query(
  `INSERT INTO content.verification_code_providers (name, type, config, secrets) VALUES ('bench', 'webhook', CAST(:config AS jsonb), CAST(:secrets AS jsonb));
   UPDATE content.server_config SET settings = CAST(:settings AS jsonb)`,
  {
    replacements: {
      config: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/` }),
      secrets: JSON.stringify({ signing_secret: randomBytes(16).toString('hex') }),
      settings: JSON.stringify({
        code_cooldown_seconds: 0,
        codes_per_phone_per_day: 1e5,
        codes_per_ip_per_day: 1e7,
        login_attempts_per_phone_per_hour: 1e5,
        login_attempts_per_ip_per_hour: 1e7,
      }),
    },
  },
);
// 10,000 characters, half public, for the list.
await db.query(`
  INSERT INTO content.users (phone) SELECT '137' || lpad(n::text, 8, '0') FROM generate_series(1, 100) AS n;
  INSERT INTO content.characters (owner_id, visibility, name, description, persona, tags, created_at, updated_at)
    SELECT u.ids[1 + n % 100], CASE WHEN n % 2 = 0 THEN 'public' ELSE 'private' END,
           'Character ' || n, 'A character for the bench', 'You are character ' || n || '.', '["bench"]'::jsonb,
           now() - n * interval '90 seconds', now() - n * interval '90 seconds'
      FROM generate_series(1, 10000) AS n, (SELECT array_agg(id) AS ids FROM content.users) AS u;
  ANALYZE content.characters;`);
// What the seeding left for autovacuum is done now, not during an idle window or a phase.
await db.query('VACUUM ANALYZE');

// The messaging organization: a sender and RECEIVERS members in one channel, each with a queue.
const realm = await createOrganization(db, { subdomain, name: 'Sizing' });
const sender = await createChatUser(db, {
  subdomain,
  email: `sender@${subdomain}.example.com`,
  fullName: 'Sender',
  role: 100,
});
const receivers = await db.query<{ id: number; delivery_email: string; api_key: string }>(
  `INSERT INTO chat.users (realm_id, delivery_email, full_name, api_key)
   SELECT :realm, 'member' || g || '@sizing.example.com', 'Member ' || g, md5(random()::text || g)
     FROM generate_series(1, :n) AS g
   RETURNING id, delivery_email, api_key`,
  { replacements: { realm: realm.id, n: RECEIVERS }, type: QueryTypes.SELECT },
);

// The three server processes, as deployed, started one after the other (a busy machine starts Node slowly).
async function serve(command: 'content-api' | 'chat-api' | 'worker', portVariable: string, extra = {}) {
  const port = await freePort();
  const started = await startProcess(
    [serverMain, command],
    { ...env, [portVariable]: String(port), ...extra },
    port,
    300_000, // the worker bundles its workflows first
  );
  return { port, url: `http://127.0.0.1:${port}`, pid: started.child.pid!, stop: started.stop };
}
const content = await serve('content-api', 'MUSE_CONTENT_PORT', {
  MUSE_WS_RATE_LIMIT: '1000000',
});
const chat = await serve('chat-api', 'MUSE_CHAT_PORT', {
  MUSE_CHAT_DEFAULT_REALM: subdomain,
  // No heartbeat answers during the run: every answered poll is a delivery.
  MUSE_CHAT_HEARTBEAT_MS: '600000',
});
const worker = await serve('worker', 'MUSE_WORKER_METRICS_PORT');
const temporalPid = ownChildNamed('start-dev');
if (!temporalPid) throw new Error("Temporal's dev server is not a child of this process");

const agent = new http.Agent({ keepAlive: true, maxSockets: RECEIVERS + 20 });
const chatCall = async (
  user: { delivery_email: string; api_key: string },
  method: string,
  path: string,
  body?: string,
) => {
  const answer = await sendOver(
    agent,
    chat.port,
    method,
    `/api/v1${path}`,
    basic(user.delivery_email, user.api_key),
    body,
  );
  if (answer.status !== 200)
    throw new Error(`${method} ${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return JSON.parse(answer.body) as Record<string, unknown>;
};
await chatCall(sender, 'POST', '/users/me/subscriptions', form({ subscriptions: '[{"name":"sizing"}]' }));
await db.query(
  `INSERT INTO chat.subscriptions (user_id, stream_id, color)
   SELECT u.id, s.id, '#76ce90' FROM chat.users u, chat.streams s
   WHERE u.realm_id = :realm AND s.realm_id = :realm AND s.name = 'sizing' AND u.id <> :sender`,
  { replacements: { realm: realm.id, sender: sender.id } },
);
const queues: { user: (typeof receivers)[number]; queueId: string }[] = [];
for (const user of receivers) {
  const { queue_id: queueId } = await chatCall(
    user,
    'POST',
    '/register',
    form({ event_types: '["message"]' }),
  );
  queues.push({ user, queueId: String(queueId) });
}

const bearer = await benchAccount(stack);
const contentFetch = async (path: string, init: RequestInit, status: number) => {
  const response = await fetch(`${content.url}/api/v1${path}`, init);
  const text = await response.text();
  if (response.status !== status)
    throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text;
};

/** Every source of CPU the guide sizes. */
const sources = {
  'content API': content.pid,
  'messaging API': chat.pid,
  worker: worker.pid,
  Postgres: stack.postgresCpuMs,
  Temporal: temporalPid,
};
type Source = keyof typeof sources;

/** Postgres's counters: the next transaction id (write transactions start one) and the WAL position. */
async function postgresCounters(): Promise<{ xid: number; wal: number; size: number }> {
  const [row] = await db.query<{ xid: string; wal: string; size: string }>(
    `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS wal,
            pg_database_size(current_database())::text AS size`,
    { type: QueryTypes.SELECT },
  );
  return { xid: Number(row!.xid), wal: Number(row!.wal), size: Number(row!.size) };
}

/**
 * What each source spends per millisecond idle, and Postgres's idle writes per millisecond: the
 * lowest of `windows` windows of `ms`, since what disturbs idle (an autovacuum, another process's
 * timer) only adds.
 */
async function idleRates(windows: number, ms: number) {
  const measured: Awaited<ReturnType<typeof idleWindow>>[] = [];
  for (let i = 0; i < windows; i++) measured.push(await idleWindow(ms));
  const lowest = (values: number[]) => Math.min(...values);
  return {
    cpu: Object.fromEntries(
      Object.keys(sources).map((source) => [source, lowest(measured.map((m) => m.cpu[source as Source]))]),
    ) as Record<Source, number>,
    xid: lowest(measured.map((m) => m.xid)),
    wal: lowest(measured.map((m) => m.wal)),
  };
}

async function idleWindow(ms: number) {
  const meter = cpuMeter(sources);
  const before = await postgresCounters();
  const started = performance.now();
  await sleep(ms);
  const used = meter();
  const after = await postgresCounters();
  const elapsed = performance.now() - started;
  return {
    cpu: Object.fromEntries(Object.entries(used).map(([name, used]) => [name, used / elapsed])) as Record<
      Source,
      number
    >,
    xid: (after.xid - before.xid) / elapsed,
    wal: (after.wal - before.wal) / elapsed,
  };
}

/** Runs `call` for indexes 0..n-1, `concurrency` at a time. */
async function runMany(n: number, concurrency: number, call: (index: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) await call(next++);
    }),
  );
}

/**
 * Waits until every process is back to its idle rate (Temporal and the worker finish work after
 * the answers: completed workflows' bookkeeping), so that a phase is not charged for the last one's.
 */
async function quiet(limitMs = 20_000): Promise<void> {
  const until = performance.now() + limitMs;
  for (let calm = 0; calm < 2 && performance.now() < until;) {
    const meter = cpuMeter(sources);
    await sleep(300);
    const used = meter();
    const busy = Object.entries(used).some(([source, ms]) => ms > idle.cpu[source as Source] * 300 + 15);
    calm = busy ? 0 : calm + 1;
  }
}

/** One phase: N operations, then what each source spent per operation above its idle rate. */
async function phase(
  name: string,
  n: number,
  run: () => Promise<void>,
  description: string,
): Promise<OperationCost> {
  await quiet();
  const meter = cpuMeter(sources);
  const before = await postgresCounters();
  const started = performance.now();
  await run();
  await sleep(300); // work handed off after the answers (wake-ups, workflow starts) lands in the phase
  const used = meter();
  const after = await postgresCounters();
  const elapsed = performance.now() - started;
  const cpuMs = Object.fromEntries(
    Object.entries(used).map(([source, ms]) => [
      source,
      Math.max(0, (ms - idle.cpu[source as Source] * elapsed) / n),
    ]),
  ) as Record<Source, number>;
  const cost: OperationCost = {
    name,
    description,
    operations: n,
    seconds: elapsed / 1000,
    cpuMs,
    writeTransactions: Math.max(0, (after.xid - before.xid - idle.xid * elapsed) / n),
    walBytes: Math.max(0, (after.wal - before.wal - idle.wal * elapsed) / n),
    storedBytes: Math.max(0, (after.size - before.size) / n),
  };
  const cpu = Object.entries(cpuMs)
    .map(([source, ms]) => `${source} ${ms.toFixed(2)}`)
    .join(', ');
  console.log(
    `${name.padEnd(34)} ${String(n).padStart(5)} in ${cost.seconds.toFixed(1).padStart(6)} s  CPU ms/op: ${cpu}; ` +
      `write transactions/op ${cost.writeTransactions.toFixed(2)}, WAL ${(cost.walBytes / 1024).toFixed(1)} KiB/op, stored ${(cost.storedBytes / 1024).toFixed(1)} KiB/op`,
  );
  return cost;
}

// Warm-up of every path (JIT, pool connections, prepared statements, Temporal's first starts).
const phones: string[] = [];
const login = async () => {
  const phone = `139${String(phones.push('') - 1).padStart(8, '0')}`;
  await contentFetch(`/auth/verification-code?phone_number=${phone}`, {}, 204);
  for (let waited = 0; !codes.has(phone); waited += 10) {
    if (waited > 30_000) throw new Error(`no code for ${phone}`);
    await sleep(10);
  }
  await contentFetch(
    '/auth/token',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone, verification_code: codes.get(phone), source: 'bench' }),
    },
    200,
  );
};
const usersMe = () => contentFetch('/users/me', { headers: bearer }, 200);
const list = () => contentFetch('/characters?scope=public&limit=50', { headers: bearer }, 200);
const submit = (index: number) =>
  contentFetch(
    '/generations/texts',
    {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ generator_id: BUILTIN_TEXT, prompt: `sizing ${index}` }),
    },
    202,
  );
const pendingTasks = async () => {
  const [row] = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM content.generations WHERE status IN ('pending', 'processing')`,
    { type: QueryTypes.SELECT },
  );
  return Number(row!.n);
};
const drained = async () => {
  for (const began = performance.now(); (await pendingTasks()) > 0;) {
    if (performance.now() - began > 600_000)
      throw new Error('the worker did not complete the tasks in 10 minutes');
    await sleep(200);
  }
};
let messageNumber = 0;
const sendMessage = () =>
  chatCall(
    sender,
    'POST',
    '/messages',
    form({ type: 'stream', to: 'sizing', topic: 'sizing', content: `sizing ${messageNumber++}` }),
  );

// Warm-up, a few in flight as measured: enough calls that V8 has optimized the hot paths, so
// the phases measure the steady state, not the interpreter.
await runMany(20, 4, login);
await runMany(count(600), 8, usersMe);
await runMany(count(600), 8, list);
await runMany(20, 8, (index) => submit(-1 - index));
await runMany(20, 1, sendMessage);
await drained();
// Each queue acknowledges the warm-up's messages, so polls later answer with one message each.
const lastIds = new Map<string, number>();
await Promise.all(
  queues.map(async ({ user, queueId }) => {
    const answer = await chatCall(
      user,
      'GET',
      `/events?${form({ queue_id: queueId, last_event_id: '-1', dont_block: 'true' })}`,
    );
    lastIds.set(queueId, (answer.events as { id: number }[]).at(-1)?.id ?? -1);
  }),
);

console.log(
  `\nSizing: CPU per operation (${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)})`,
);
const idle = await idleRates(3, 4000);
console.log(
  `idle CPU ms/s: ${Object.entries(idle.cpu)
    .map(([source, rate]) => `${source} ${(rate * 1000).toFixed(1)}`)
    .join(', ')}`,
);

const costs: OperationCost[] = [];
costs.push(
  await phase(
    'login',
    count(60),
    () => runMany(count(60), 4, login),
    'a verification code sent (webhook) and a first login with it (registration, grant, token)',
  ),
);
costs.push(
  await phase(
    'GET /users/me',
    count(1000),
    () => runMany(count(1000), 8, usersMe),
    'token verify and account read',
  ),
);
costs.push(
  await phase(
    'list',
    count(600),
    () => runMany(count(600), 8, list),
    '`GET /characters?scope=public&limit=50` over 5,000 public characters',
  ),
);
costs.push(
  await phase(
    'generation',
    count(80),
    async () => {
      await runMany(count(80), 8, submit);
      await drained();
    },
    'a built-in text generation submitted (`POST /generations/texts`), its workflow started and run by the worker to completed',
  ),
);
const messages = count(40);
const sends = await phase(
  'chat message',
  messages,
  () => runMany(messages, 1, sendMessage),
  `a channel message (\`POST /messages\`) to ${RECEIVERS} members, each with an event queue (not polling)`,
);
costs.push(sends);

// Event polls: every receiver long-polls its queue; each message answers all of them. What the
// sends alone cost (the phase above) is taken off, the rest is the polls' (answer, re-poll).
let expected = -1;
let answered = 0;
let allAnswered = () => {};
let stopping = false;
let waiting = 0;
const polling = queues.map(async ({ user, queueId }) => {
  while (!stopping) {
    waiting++;
    const path = `/api/v1/events?${form({ queue_id: queueId, last_event_id: String(lastIds.get(queueId)) })}`;
    const answer = await sendOver(
      agent,
      chat.port,
      'GET',
      path,
      basic(user.delivery_email, user.api_key),
    ).catch((error: Error) => ({ status: 0, body: error.message }));
    waiting--;
    if (stopping) return;
    if (answer.status !== 200) {
      console.error(`poll: ${answer.status} ${answer.body.slice(0, 300)}`);
      process.exit(1); // the bench's exit handlers stop the servers
    }
    const events = (JSON.parse(answer.body) as { events: { id: number; message?: { content: string } }[] })
      .events;
    lastIds.set(queueId, events.at(-1)?.id ?? lastIds.get(queueId)!);
    if (events.some((e) => e.message?.content.includes(`sizing ${expected}`)) && ++answered === queues.length)
      allAnswered();
  }
});
/** `count` messages, each sent once every poll waits again, and answered to all of them. */
async function deliver(count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    while (waiting < queues.length) await sleep(5);
    answered = 0;
    const done = new Promise<void>((resolve) => (allAnswered = resolve));
    expected = messageNumber;
    await sendMessage();
    await done;
  }
}
await deliver(10); // warm-up of the polls' path
const polled = await phase(
  'event poll',
  messages * RECEIVERS,
  () => deliver(messages),
  'a held `GET /events` answered with one message, and the next poll (what a receiver costs beyond the send)',
);
stopping = true;
agent.destroy();
await Promise.allSettled(polling);
for (const source of Object.keys(polled.cpuMs) as Source[]) {
  polled.cpuMs[source] = Math.max(0, polled.cpuMs[source]! - sends.cpuMs[source]! / RECEIVERS);
}
polled.writeTransactions = Math.max(0, polled.writeTransactions - sends.writeTransactions / RECEIVERS);
polled.walBytes = Math.max(0, polled.walBytes - sends.walBytes / RECEIVERS);
polled.storedBytes = Math.max(0, polled.storedBytes - sends.storedBytes / RECEIVERS);
costs.push(polled);

// A conversation socket message: one socket posts, the conversation's two sockets receive it.
const [owner] = await db.query<{ id: string }>(`SELECT id FROM content.users WHERE balance > 0 LIMIT 1`, {
  type: QueryTypes.SELECT,
});
const [conversation] = await db.query<{ id: string }>(
  `INSERT INTO content.conversations (owner_id, title) VALUES (:owner, 'sizing') RETURNING id`,
  { replacements: { owner: owner!.id }, type: QueryTypes.SELECT },
);
const token = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, 3600).sign({
  id: owner!.id,
  isActive: true,
  isAdmin: false,
});
let onFrame: (data: string) => void = () => {};
const sockets = await Promise.all(
  [0, 1].map(async () => {
    const socket = new WebSocket(
      `ws://127.0.0.1:${content.port}/api/v1/conversations/${conversation!.id}/ws?token=${token}`,
    );
    socket.on('message', (data) => onFrame(data.toString()));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return socket;
  }),
);
/** Posts messages `from`..`to`-1 on the first socket, each once every socket received the last. */
async function post(from: number, to: number): Promise<void> {
  for (let n = from; n < to; n++) {
    let left = sockets.length;
    await new Promise<void>((resolve) => {
      onFrame = (data) => {
        const frame = JSON.parse(data) as { type: string; message?: { content: string } };
        if (frame.type === 'message' && frame.message?.content === `socket ${n}` && --left === 0) resolve();
      };
      sockets[0]!.send(JSON.stringify({ type: 'post', content: `socket ${n}`, client_id: `sizing-${n}` }));
    });
  }
}
const socketMessages = count(100);
await post(-30, 0); // warm-up
costs.push(
  await phase(
    'socket message',
    socketMessages,
    () => post(0, socketMessages),
    "a conversation WebSocket `post` stored and delivered to the conversation's 2 sockets",
  ),
);
for (const socket of sockets) socket.terminate();

clearInterval(loadSampler);
loadSamples.push(os.loadavg()[0]!);
const cpuModel =
  /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ??
  os.cpus()[0]?.model ??
  'unknown';
const figures: Figures = {
  date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  machine: {
    cores: os.cpus().length,
    model: cpuModel,
    loadMin: Math.min(...loadSamples),
    loadMax: Math.max(...loadSamples),
    node: process.version,
  },
  receivers: RECEIVERS,
  idleCpuMsPerSecond: Object.fromEntries(
    Object.entries(idle.cpu).map(([source, rate]) => [source, rate * 1000]),
  ),
  costs,
};
writeFileSync(values.out, writeGuide(figures));
console.log(`\nwrote ${values.out}`);

receiver.close();
for (const process of [content, chat, worker]) await process.stop();
await stack.stop();
process.exit(0);
