/**
 * Scheduled-delivery benchmark: `node bench/scheduled-messages.ts [count] [concurrency]`
 * (or `npm run bench -- scheduled-messages`). Starts an embedded Postgres, a Temporal dev server,
 * a worker and the messaging API, schedules `count` direct messages (default 1,000) for the
 * same second through POST /scheduled_messages, and measures, for each, the delay from that
 * second to the `message` event reaching the recipient's waiting GET /events. Baseline from the
 * same run: the same number of plain POST /messages fired at one instant, measured from that
 * instant to their events. The API, the worker and the load generator share one process; the
 * CPU time per message of it, of Temporal's dev server and of Postgres is printed for both. Every
 * scheduled message must be delivered exactly once (the bench fails otherwise).
 */
import { createChatApp, createChatUser, createOrganization } from '@muse/chat-api';
import { taskQueueOf } from '@muse/core';
import { createWorker } from '@muse/temporal';
import { QueryTypes } from 'sequelize';
import { cpuMeter, ownChildNamed, startBenchStack } from './lib.ts';

const COUNT = Number(process.argv[2] ?? 1000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const WARM_UP = 40;

const subdomain = `sched${Date.now()}`;
const stack = await startBenchStack({
  temporal: true,
  env: { TEMPORAL_TASK_QUEUE: 'bench', MUSE_CHAT_DEFAULT_REALM: subdomain, MUSE_CHAT_HEARTBEAT_MS: '1000' },
});
const { db, config } = stack;
await createOrganization(db, { subdomain, name: 'Bench' });
const [sender, recipient] = await Promise.all(
  ['sender', 'recipient'].map((name) =>
    createChatUser(db, { subdomain, email: `${name}-${subdomain}@example.com`, fullName: name, role: 400 }),
  ),
);
const server = await stack.serve(createChatApp(stack));
const worker = await createWorker({
  address: config.TEMPORAL_ADDRESS!,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueues: [taskQueueOf(config, 'delivery')],
  deps: stack,
});
const running = worker.run();

const authOf = (user: { delivery_email: string; api_key: string }) =>
  `Basic ${Buffer.from(`${user.delivery_email}:${user.api_key}`).toString('base64')}`;
async function api(
  user: typeof sender,
  method: string,
  path: string,
  params: Record<string, string>,
): Promise<Record<string, unknown>> {
  const body = new URLSearchParams(params).toString();
  const inQuery = method === 'GET';
  const response = await withRetry(() =>
    fetch(`${server.url}/api/v1${path}${inQuery ? `?${body}` : ''}`, {
      method,
      headers: { authorization: authOf(user!), 'content-type': 'application/x-www-form-urlencoded' },
      ...(inQuery ? {} : { body }),
    }),
  );
  const answer = (await response.json()) as Record<string, unknown>;
  if (answer.result !== 'success') throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * A connection reset by the server as it is reused is tried again (a repeated create only adds a
 * sample), and so is a 503 "try again" (the scheduler did not answer in time on a busy machine:
 * the API removed that scheduled message, so nothing is delivered twice).
 */
async function withRetry(send: () => Promise<Response>, attempts = 5): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await send();
      if (response.status !== 503 || attempt >= attempts) return response;
      await response.arrayBuffer();
    } catch (error) {
      const code = ((error as { cause?: { code?: string } }).cause ?? {}).code;
      if (code !== 'ECONNRESET' || attempt >= attempts) throw error;
    }
  }
}

/** Runs `task(i)` for i < count with `concurrency` in flight. */
async function pool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Long-polls the recipient's queue until `count` message events arrived; returns each one's arrival time (ms). */
async function collect(queueId: string, count: number): Promise<number[]> {
  const arrivals: number[] = [];
  let lastEventId = -1;
  while (arrivals.length < count) {
    const reply = await api(recipient, 'GET', '/events', {
      queue_id: queueId,
      last_event_id: String(lastEventId),
    });
    const now = Date.now();
    for (const event of reply.events as { id: number; type: string }[]) {
      lastEventId = Math.max(lastEventId, event.id);
      if (event.type === 'message') arrivals.push(now);
    }
  }
  return arrivals;
}

const summary = (delays: number[]) => {
  const sorted = [...delays].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return {
    p50_ms: Math.round(at(50)),
    p99_ms: Math.round(at(99)),
    max_ms: Math.round(sorted.at(-1)!),
    samples: sorted.length,
  };
};
/** CPU ms per message of each source over one phase (the collection included, for both alike). */
const perMessage = (used: Record<string, number>) =>
  Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, +(ms / COUNT).toFixed(2)]));

/** Each of the COUNT scheduled messages is in the conversation exactly once, and none of the warm-up ones. */
async function deliveredOnce(): Promise<void> {
  const [row] = await db.query<{ distinct: string; total: string }>(
    `SELECT count(DISTINCT content) AS distinct, count(*) AS total FROM chat.messages
      WHERE content LIKE 'scheduled %' AND sender_id = :sender`,
    { replacements: { sender: sender!.id }, type: QueryTypes.SELECT },
  );
  if (Number(row!.distinct) !== COUNT || Number(row!.total) !== COUNT)
    throw new Error(
      `scheduled messages delivered: ${row!.total} rows, ${row!.distinct} distinct; expected ${COUNT} once each`,
    );
}

const register = async () =>
  String((await api(recipient, 'POST', '/register', { event_types: JSON.stringify(['message']) })).queue_id);

const create = (i: number, second: number) =>
  api(sender, 'POST', '/scheduled_messages', {
    type: 'direct',
    to: JSON.stringify([recipient!.id]),
    content: `scheduled ${i}`,
    scheduled_delivery_timestamp: String(second),
  });

// 0. Warm-up, scheduled a day ahead: measures how fast this machine creates them now, so the
// chosen second leaves time to create all COUNT (with a wide margin: the machine may get busier).
const warmUpStarted = performance.now();
const tomorrow = Math.ceil(Date.now() / 1000) + 86_400;
await pool(WARM_UP, CONCURRENCY, (i) => create(-i, tomorrow));
const warmUpRate = WARM_UP / ((performance.now() - warmUpStarted) / 1000);
const leadSeconds = Math.ceil((COUNT / warmUpRate) * 3) + 15;

// 1. COUNT messages for one second, far enough ahead that creating them ends before it.
const second = Math.ceil(Date.now() / 1000) + leadSeconds;
const createStarted = performance.now();
await pool(COUNT, CONCURRENCY, (i) => create(i, second));
const createSeconds = (performance.now() - createStarted) / 1000;
if (Date.now() > second * 1000 - 1000) {
  console.error(
    `creating ${COUNT} took ${createSeconds.toFixed(1)} s, past the chosen second: raise lead-seconds`,
  );
  process.exit(1);
}
const scheduledQueue = await register();
const cpuSources = {
  'API + worker + load': process.pid,
  Temporal: ownChildNamed('start-dev') ?? 0,
  Postgres: stack.postgresCpuMs,
};
let meter = cpuMeter(cpuSources);
const scheduledArrivals = await collect(scheduledQueue, COUNT);
const scheduledCpu = perMessage(meter());
const scheduled = summary(scheduledArrivals.map((t) => t - second * 1000));
console.log(JSON.stringify({ scheduled_for_one_second: COUNT, delivery_delay_from_timestamp: scheduled }));

// 2. Baseline: the same number of plain sends fired at one instant.
const baselineQueue = await register();
meter = cpuMeter(cpuSources);
const fired = Date.now();
const sending = pool(COUNT, COUNT, (i) =>
  api(sender, 'POST', '/messages', {
    type: 'direct',
    to: JSON.stringify([recipient!.id]),
    content: `direct ${i}`,
  }),
);
const baselineArrivals = await collect(baselineQueue, COUNT);
await sending;
const baselineCpu = perMessage(meter());
const baseline = summary(baselineArrivals.map((t) => t - fired));
await deliveredOnce();

console.log(
  JSON.stringify(
    {
      scheduled_for_one_second: COUNT,
      create_requests_per_second: Math.round(COUNT / createSeconds),
      scheduled_seconds_ahead: leadSeconds,
      delivery_delay_from_timestamp: scheduled,
      baseline_plain_sends_at_one_instant: baseline,
      p99_ratio_to_baseline: +(scheduled.p99_ms / baseline.p99_ms).toFixed(2),
      target: `p99 ≤ 1.5× the plain sends': ${scheduled.p99_ms <= 1.5 * baseline.p99_ms ? 'met' : 'not met'}`,
      cpu_ms_per_message: { scheduled: scheduledCpu, plain_sends: baselineCpu },
      delivered_once: true,
      note: 'API, worker, Temporal dev server, Postgres and load generator share this machine',
    },
    null,
    2,
  ),
);
worker.shutdown();
await running;
await stack.stop();
