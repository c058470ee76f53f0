/**
 * Database round trips per request on the hot paths: `node bench/round-trips.ts [requests]`.
 * Each `muse-server` process (content API, messaging API, worker) reaches Postgres through a
 * counting relay of its own that reads the client's side of the wire protocol: a round trip ends
 * with a Sync (extended protocol) or is one Query message (simple protocol). A path is run
 * `requests` times one after the other, after a warm-up; the figure is the count over the run
 * divided by the requests, beside what the same process did idle over the same time. Counts, not
 * timings: they hold on a busy machine and say whether a change kept the statements of a path.
 * `--statements` also prints the statements of each path's last request, to see which one a
 * change added.
 */
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { QueryTypes } from 'sequelize';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { basic, form } from './chat-client.ts';
import { benchAccount, freePort, startBenchStack, startProcess } from './lib.ts';

const REQUESTS = Number(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 20);
const SHOW_STATEMENTS = process.argv.includes('--statements');
const BUILTIN_TEXT = '00000000-0000-4000-8000-000000000003';
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));

/** The text of the statements the relays saw since the last request began (`--statements`). */
const statements: string[] = [];

/** The SQL of a simple Query ('Q': the text) or of a Parse ('P': a statement name, then the text). */
function statementText(type: string, body: Buffer): string | undefined {
  if (type === 'Q') return body.subarray(0, body.indexOf(0)).toString();
  if (type !== 'P') return undefined;
  const textStart = body.indexOf(0) + 1;
  return body.subarray(textStart, body.indexOf(0, textStart)).toString();
}

/** A TCP relay to Postgres that counts the round trips its clients start. */
async function countingRelay(target: URL): Promise<{ url: string; count: () => number }> {
  let trips = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    let pending = Buffer.alloc(0);
    let started = false; // past the startup message (which has no type byte)
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          // SSLRequest and GSSENCRequest come before the real startup message.
          started = code !== 80877103 && code !== 80877104;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'S' || type === 'Q') trips++;
        const text = SHOW_STATEMENTS ? statementText(type, pending.subarray(5, 1 + length)) : undefined;
        if (text) statements.push(text.replace(/\s+/g, ' '));
        pending = pending.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return { url: url.toString(), count: () => trips };
}

const stack = await startBenchStack({ temporal: true });
const { db } = stack;
const env = { ...stack.serverEnv, TEMPORAL_TASK_QUEUE: 'round-trips', MUSE_DATA_DIR: stack.workDir };
const subdomain = 'roundtrips';

const stops: (() => Promise<void>)[] = [];
const PORT_VARIABLE = {
  'content-api': 'MUSE_CONTENT_PORT',
  'chat-api': 'MUSE_CHAT_PORT',
  worker: 'MUSE_WORKER_METRICS_PORT',
} as const;

/** A `muse-server` process whose database connections go through a counting relay of its own. */
async function serve(command: keyof typeof PORT_VARIABLE) {
  const relay = await countingRelay(new URL(stack.databaseUrl));
  const port = await freePort();
  const portVariable = PORT_VARIABLE[command];
  const started = await startProcess(
    [serverMain, command],
    { ...env, DATABASE_URL: relay.url, [portVariable]: String(port), MUSE_CHAT_DEFAULT_REALM: subdomain },
    port,
    300_000, // a busy machine bundles the worker's workflows slowly
  );
  stops.push(started.stop);
  return { url: `http://127.0.0.1:${port}`, relay };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a process does idle (polls, heartbeats) over `ms`. */
async function idleTrips(count: () => number, ms: number): Promise<number> {
  const before = count();
  await sleep(ms);
  return count() - before;
}

/** Round trips per call of `call` (after three warm-up calls), and the idle count over as long. */
async function measure(count: () => number, call: (index: number) => Promise<void>) {
  for (let i = 0; i < 3; i++) await call(-1 - i);
  await sleep(1000);
  const before = count();
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    statements.length = 0;
    await call(i);
  }
  await sleep(500); // work a request hands off (a workflow start) lands in the count
  const busy = count() - before;
  // Printed before the path's figure; what the other processes did meanwhile is among them.
  for (const text of SHOW_STATEMENTS ? statements : []) console.log(`      ${text.slice(0, 150)}`);
  const idle = await idleTrips(count, performance.now() - started);
  return `${(busy / REQUESTS).toFixed(2)} per request (idle over the same time: ${idle})`;
}

async function expectStatus(response: Response, status: number, what: string): Promise<void> {
  if (response.status !== status) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

const report = (path: string, figure: string) => console.log(`  ${path.padEnd(68)} ${figure}`);
console.log(`Database round trips (${REQUESTS} requests each, one at a time)`);

// The worker runs from the start, so its start-up is not counted against the tasks.
const worker = await serve('worker');
await sleep(3000);
const workerIdlePerMs = (await idleTrips(worker.relay.count, 5000)) / 5000;
const workerBefore = worker.relay.count();
const workerSince = performance.now();
const pendingTasks = async () => {
  const [row] = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM content.generations WHERE status <> 'completed'`,
    { type: QueryTypes.SELECT },
  );
  return Number(row!.n);
};

// The content API: GET /users/me, a public list, a generation submit.
const content = await serve('content-api');
const bearer = await benchAccount(stack);
report(
  'GET /api/v1/users/me',
  await measure(content.relay.count, async () =>
    expectStatus(await fetch(`${content.url}/api/v1/users/me`, { headers: bearer }), 200, 'users/me'),
  ),
);
report(
  'GET /api/v1/characters?scope=public&limit=50',
  await measure(content.relay.count, async () =>
    expectStatus(
      await fetch(`${content.url}/api/v1/characters?scope=public&limit=50`, { headers: bearer }),
      200,
      'characters',
    ),
  ),
);
report(
  'POST /api/v1/generations/texts (built-in; with its workflow start)',
  await measure(content.relay.count, async (index) =>
    expectStatus(
      await fetch(`${content.url}/api/v1/generations/texts`, {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({ generator_id: BUILTIN_TEXT, prompt: `round trips ${index}` }),
      }),
      202,
      'submit',
    ),
  ),
);

// The worker: every built-in task the submits above made (warm-ups included), start to completed.
while ((await pendingTasks()) > 0) await sleep(200);
await sleep(500);
const tasks = REQUESTS + 3;
const workerIdle = Math.round(workerIdlePerMs * (performance.now() - workerSince));
report(
  'worker: one built-in text task, start to completed',
  `${((worker.relay.count() - workerBefore - workerIdle) / tasks).toFixed(2)} per task (${tasks} tasks; ${workerIdle} of idle polling at the idle rate taken off)`,
);

// The messaging API: subscribe (new, and already subscribed), a channel message.
await createOrganization(db, { subdomain, name: 'Round trips' });
const chatUser = await createChatUser(db, {
  subdomain,
  email: 'round-trips@example.com',
  fullName: 'Round Trips',
  role: 100,
});
const chat = await serve('chat-api');
const chatHeaders = {
  ...basic(chatUser.delivery_email, chatUser.api_key),
  'content-type': 'application/x-www-form-urlencoded',
};
const chatPost = async (path: string, params: Record<string, string>) =>
  expectStatus(
    await fetch(`${chat.url}/api/v1${path}`, { method: 'POST', headers: chatHeaders, body: form(params) }),
    200,
    path,
  );
report(
  'POST /api/v1/users/me/subscriptions (a new channel)',
  await measure(chat.relay.count, (index) =>
    chatPost('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: `new-${index}` }]) }),
  ),
);
report(
  'POST /api/v1/users/me/subscriptions (already subscribed)',
  await measure(chat.relay.count, () =>
    chatPost('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'new-0' }]) }),
  ),
);
report(
  'POST /api/v1/messages (a channel message)',
  await measure(chat.relay.count, (index) =>
    chatPost('/messages', { type: 'stream', to: 'new-0', topic: 'bench', content: `message ${index}` }),
  ),
);
report(
  'GET /api/v1/messages (a one-word search, the newest 50)',
  await measure(chat.relay.count, async () => {
    const narrow = JSON.stringify([{ operator: 'search', operand: 'message' }]);
    const query = form({ narrow, anchor: 'newest', num_before: '50', num_after: '0' });
    await expectStatus(
      await fetch(`${chat.url}/api/v1/messages?${query}`, { headers: chatHeaders }),
      200,
      'search',
    );
  }),
);

for (const stop of stops) await stop();
await stack.stop();
process.exit(0);
