/**
 * Scheduled-delivery benchmark: `node bench/scheduled-messages.ts [count] [concurrency]
 * [--wake-early <seconds>]` (or `npm run bench -- scheduled-messages`). Starts an embedded
 * Postgres, a Temporal dev server, a `muse-server worker` serving the delivery queue (its own
 * process, as in production) and the messaging API (in this process, beside the load),
 * schedules `count` direct messages (default 1,000) for the same second through
 * POST /scheduled_messages, and measures, for each, the delay from that second to the `message`
 * event reaching the recipient's waiting GET /events. Baseline from the same run, first (on the
 * idle stack, so nothing of the scheduled phase runs beside it): the same
 * number of plain POST /messages fired at one instant, measured from that instant to their
 * events. The CPU time per message of this process, the worker, Temporal's dev server and
 * Postgres is printed for both (the scheduled ones' also split at their second: the wake-ups
 * before it, the instant after; `--timeline`: second by second), and for the scheduled ones how
 * long before their second Temporal had handed them to the worker, and why any attempt was
 * retried (`--wake-early`: MUSE_DELIVERY_WAKE_EARLY_SECONDS, default the configuration's). Every
 * scheduled message must be delivered exactly once (the bench fails otherwise). BENCH_CPU_PROF:
 * see lib.ts (the worker's profile).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createChatApp, scheduledMessageWorkflowId } from '@muse/chat-api';
import { QueryTypes } from 'sequelize';
import { chatClient } from './chat-client.ts';
import {
  cpuMeter,
  freePort,
  ownChildNamed,
  senderAndRecipient,
  serverNodeOptions,
  startBenchStack,
  startProcess,
} from './lib.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { 'wake-early': { type: 'string' }, timeline: { type: 'boolean' } },
});
const COUNT = Number(positionals[0] ?? 1000);
const CONCURRENCY = Number(positionals[1] ?? 16);
const WARM_UP = 40;
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));
const wakeEarly: Record<string, string> = values['wake-early']
  ? { MUSE_DELIVERY_WAKE_EARLY_SECONDS: values['wake-early'] }
  : {};

const subdomain = `sched${Date.now()}`;
const stack = await startBenchStack({
  temporal: true,
  env: {
    TEMPORAL_TASK_QUEUE: 'bench',
    MUSE_CHAT_DEFAULT_REALM: subdomain,
    MUSE_CHAT_HEARTBEAT_MS: '1000',
    ...wakeEarly,
  },
});
const { db, config } = stack;
const [sender, recipient] = await senderAndRecipient(db, subdomain);
const server = await stack.serve(createChatApp(stack));
const api = chatClient(server.url);
const workerPort = await freePort();
// BENCH_CPU_PROF=<dir>: the worker writes a CPU profile there when it stops.
const worker = await startProcess(
  [...serverNodeOptions(), serverMain, 'worker'],
  {
    ...stack.serverEnv,
    TEMPORAL_TASK_QUEUE: 'bench',
    MUSE_DATA_DIR: stack.workDir,
    MUSE_SECRETS_KEY: randomBytes(32).toString('base64'),
    MUSE_WORKER_WORKLOADS: 'delivery',
    MUSE_WORKER_METRICS_PORT: String(workerPort),
  },
  workerPort,
);

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
    { replacements: { sender: sender.id }, type: QueryTypes.SELECT },
  );
  if (Number(row!.distinct) !== COUNT || Number(row!.total) !== COUNT)
    throw new Error(
      `scheduled messages delivered: ${row!.total} rows, ${row!.distinct} distinct; expected ${COUNT} once each`,
    );
}

const register = async () =>
  String((await api(recipient, 'POST', '/register', { event_types: JSON.stringify(['message']) })).queue_id);

const scheduledIds: number[] = [];
const create = async (content: string, second: number) => {
  const answer = await api(sender, 'POST', '/scheduled_messages', {
    type: 'direct',
    to: JSON.stringify([recipient.id]),
    content,
    scheduled_delivery_timestamp: String(second),
  });
  return Number(answer.scheduled_message_id);
};

/** Milliseconds of a history event's time. */
const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

/**
 * From each delivered workflow's history, after the run: when its last timer fired and (woken
 * early) when its delivery activity started, in ms after the due second (negative: before).
 */
async function handOver(second: number) {
  const timerFired: number[] = [];
  const activityStarted: number[] = [];
  const attempts: number[] = [];
  /** Why the attempts before each one's last failed (the last attempt's start records it). */
  const retriedBecause = new Map<string, number>();
  await pool(scheduledIds.length, 8, async (i) => {
    const handle = stack.temporal.workflow.getHandle(
      scheduledMessageWorkflowId(config.TEMPORAL_TASK_QUEUE, scheduledIds[i]!),
    );
    // Finished first: an activity's start is recorded with its completion, which may come after the sends.
    await handle.result();
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const fired = events.filter((event) => event.timerFiredEventAttributes).at(-1);
    const started = events.filter((event) => event.activityTaskStartedEventAttributes).at(-1);
    if (fired) timerFired.push(eventMs(fired.eventTime) - second * 1000);
    if (started) activityStarted.push(eventMs(started.eventTime) - second * 1000);
    if (started) attempts.push(started.activityTaskStartedEventAttributes!.attempt ?? 1);
    const failure = started?.activityTaskStartedEventAttributes?.lastFailure?.message?.slice(0, 120);
    if (failure) retriedBecause.set(failure, (retriedBecause.get(failure) ?? 0) + 1);
  });
  return {
    timer_fired_after_due: summary(timerFired),
    // The last attempt's start: an attempt that timed out (no heartbeat in time) was retried.
    ...(activityStarted.length
      ? {
          delivery_activity_started_after_due: summary(activityStarted),
          delivery_attempts: {
            max: Math.max(...attempts),
            retried: attempts.filter((n) => n > 1).length,
            because: Object.fromEntries(retriedBecause),
          },
        }
      : {}),
  };
}

const cpuSources = {
  'API + load': process.pid,
  worker: worker.child.pid ?? 0,
  Temporal: ownChildNamed('start-dev') ?? 0,
  Postgres: stack.postgresCpuMs,
};

// 0. Baseline first, on an idle stack: the same number of plain sends fired at one instant.
const baselineQueue = await register();
let meter = cpuMeter(cpuSources);
const fired = Date.now();
const sending = pool(COUNT, COUNT, (i) =>
  api(sender, 'POST', '/messages', {
    type: 'direct',
    to: JSON.stringify([recipient.id]),
    content: `direct ${i}`,
  }),
);
const baselineArrivals = await collect(baselineQueue, COUNT);
await sending;
const baselineCpu = perMessage(meter());
const baseline = summary(baselineArrivals.map((t) => t - fired));

// 1. Warm-up, scheduled a day ahead: measures how fast this machine creates them now, so the
// chosen second leaves time to create all COUNT (with a wide margin: the machine may get busier).
const warmUpStarted = performance.now();
const tomorrow = Math.ceil(Date.now() / 1000) + 86_400;
await pool(WARM_UP, CONCURRENCY, (i) => create(`warm-up ${i}`, tomorrow));
const warmUpRate = WARM_UP / ((performance.now() - warmUpStarted) / 1000);
// The workflows wake MUSE_DELIVERY_WAKE_EARLY_SECONDS before the second: after the creates.
const leadSeconds = Math.ceil((COUNT / warmUpRate) * 3) + 15 + config.MUSE_DELIVERY_WAKE_EARLY_SECONDS;

// 2. COUNT messages for one second, far enough ahead that creating them ends before it.
const second = Math.ceil(Date.now() / 1000) + leadSeconds;
const createStarted = performance.now();
await pool(COUNT, CONCURRENCY, async (i) => scheduledIds.push(await create(`scheduled ${i}`, second)));
const createSeconds = (performance.now() - createStarted) / 1000;
if (Date.now() > second * 1000 - 1000) {
  console.error(
    `creating ${COUNT} took ${createSeconds.toFixed(1)} s, past the chosen second: raise lead-seconds`,
  );
  process.exit(1);
}
const scheduledQueue = await register();
meter = cpuMeter(cpuSources);
// Split at the second: the wake-ups before it, the instant's sends (and what competes with them) after.
let atTheSecond: Record<string, number> = {};
const split = setTimeout(() => (atTheSecond = meter()), second * 1000 - Date.now());
// --timeline: each source's CPU ms in each second, by second after the due one.
let lastTick = meter();
const tick = values.timeline
  ? setInterval(() => {
      const now = meter();
      const spent = Object.entries(now).map(([name, ms]) => `${name} ${Math.round(ms - lastTick[name]!)}`);
      console.log(`${Math.round((Date.now() - second * 1000) / 1000)} s: ${spent.join(', ')}`);
      lastTick = now;
    }, 1000)
  : undefined;
const scheduledArrivals = await collect(scheduledQueue, COUNT);
clearTimeout(split);
clearInterval(tick);
const scheduledUsed = meter();
const scheduledCpu = perMessage(scheduledUsed);
const afterTheSecond = Object.fromEntries(
  Object.entries(scheduledUsed).map(([name, ms]) => [name, ms - (atTheSecond[name] ?? 0)]),
);
const scheduled = summary(scheduledArrivals.map((t) => t - second * 1000));
console.log(JSON.stringify({ scheduled_for_one_second: COUNT, delivery_delay_from_timestamp: scheduled }));

await deliveredOnce();
const handedOver = await handOver(second);

console.log(
  JSON.stringify(
    {
      scheduled_for_one_second: COUNT,
      create_requests_per_second: Math.round(COUNT / createSeconds),
      scheduled_seconds_ahead: leadSeconds,
      wake_early_seconds: config.MUSE_DELIVERY_WAKE_EARLY_SECONDS,
      delivery_delay_from_timestamp: scheduled,
      temporal_hand_over_ms: handedOver,
      baseline_plain_sends_at_one_instant: baseline,
      p99_ratio_to_baseline: +(scheduled.p99_ms / baseline.p99_ms).toFixed(2),
      target: `p99 ≤ 1.5× the plain sends': ${scheduled.p99_ms <= 1.5 * baseline.p99_ms ? 'met' : 'not met'}`,
      cpu_ms_per_message: {
        scheduled: scheduledCpu,
        scheduled_before_the_second: perMessage(atTheSecond),
        scheduled_from_the_second_to_the_last_arrival: perMessage(afterTheSecond),
        plain_sends: baselineCpu,
      },
      delivered_once: true,
      note: 'API + load, worker, Temporal dev server and Postgres share this machine',
    },
    null,
    2,
  ),
);
await worker.stop();
await stack.stop();
