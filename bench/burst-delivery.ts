/**
 * Scheduled delivery during a generation burst (issue 22 item 5):
 *   node bench/burst-delivery.ts [--generations 2000] [--messages 20] [--upstream-seconds 120]
 *                                [--delivery-pool] [--wake-early <seconds>]
 *
 * One `muse-server worker` process serves every workload (MUSE_WORKER_WORKLOADS=all: one
 * Temporal worker per workload's task queue, each with its own slots; with `--delivery-pool`, a
 * second worker process serves deliveries alone, as the chart's `worker.pools` can) and one
 * `muse-server content-api` process takes the submits; the messaging API, the load and a slow
 * fake upstream (a Replicate-style predictions API answering after `upstream-seconds`, polled
 * every second) run here. First, with nothing else running, `messages` direct messages are
 * scheduled one due per second (from 10 s plus the wake-early window on) and each one's lateness is measured: from its
 * `scheduled_delivery_timestamp` to the `message` event reaching the recipient's waiting
 * `GET /events`. Then the same number of messages is scheduled the same way, `generations` tasks
 * are submitted at once right after, and the messages fall due while the tasks are being
 * submitted and run. The figure is the lateness during the burst beside the quiet one, as a
 * ratio; the bench fails if a message is not delivered exactly once or if the burst had ended
 * before the last message was due (then it measured nothing).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createChatApp } from '@muse/chat-api';
import { createTokenSigner } from '@muse/content-api';
import { startFakeReplicate } from '../test/support/fakes/replicate.ts';
import { chatClient } from './chat-client.ts';
import { freePort, ratio, senderAndRecipient, startBenchStack, startProcess } from './lib.ts';

const { values } = parseArgs({
  options: {
    generations: { type: 'string', default: '2000' },
    messages: { type: 'string', default: '20' },
    'upstream-seconds': { type: 'string', default: '120' },
    'delivery-pool': { type: 'boolean', default: false },
    'wake-early': { type: 'string' },
  },
});
/** MUSE_DELIVERY_WAKE_EARLY_SECONDS of the messaging API (which starts the workflows); default the configuration's. */
const wakeEarly: Record<string, string> = values['wake-early']
  ? { MUSE_DELIVERY_WAKE_EARLY_SECONDS: values['wake-early'] }
  : {};
const GENERATIONS = Number(values.generations);
const MESSAGES = Number(values.messages);
const UPSTREAM_SECONDS = Number(values['upstream-seconds']);
const SUBMIT_CONNECTIONS = 50;
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));

const subdomain = `burst${Date.now()}`;
const stack = await startBenchStack({
  temporal: true,
  env: {
    TEMPORAL_TASK_QUEUE: 'bench',
    MUSE_CHAT_DEFAULT_REALM: subdomain,
    MUSE_CHAT_HEARTBEAT_MS: '1000',
    ...wakeEarly,
  },
});
const { db } = stack;
const env = {
  ...stack.serverEnv,
  TEMPORAL_TASK_QUEUE: 'bench',
  MUSE_DATA_DIR: stack.workDir,
  MUSE_SECRETS_KEY: randomBytes(32).toString('base64'),
};

// The slow upstream, the content API and the worker.
const upstream = await startFakeReplicate('r8-bench');
upstream.processingMs = UPSTREAM_SECONDS * 1000;
const apiPort = await freePort();
const contentApi = await startProcess(
  [serverMain, 'content-api'],
  { ...env, MUSE_CONTENT_PORT: String(apiPort) },
  apiPort,
);
const contentUrl = `http://127.0.0.1:${apiPort}`;
/** The worker processes: one serving every workload, or (`--delivery-pool`) deliveries apart. */
const pools = values['delivery-pool'] ? ['generation,payments', 'delivery'] : ['all'];
const workers = await Promise.all(
  pools.map(async (workloads) => {
    const port = await freePort();
    return startProcess(
      [serverMain, 'worker'],
      { ...env, MUSE_WORKER_WORKLOADS: workloads, MUSE_WORKER_METRICS_PORT: String(port) },
      port,
    );
  }),
);

// A content user with credits, an administrator, and the slow generator.
const signer = createTokenSigner(stack.config.MUSE_JWT_SECRET!, 3600);
const [owner, admin] = await db.query<{ id: string; is_admin: boolean }>(
  `INSERT INTO content.users (phone, balance, is_admin) VALUES ('13800000001', 1000000000, false), ('13800000002', 0, true)
   RETURNING id, is_admin`,
  { type: QueryTypes.SELECT },
);
const bearer = async (user: { id: string; is_admin: boolean }) => ({
  authorization: `Bearer ${await signer.sign({ id: user.id, isActive: true, isAdmin: user.is_admin })}`,
  'content-type': 'application/json',
});
const ownerHeaders = await bearer(owner!);
const created = await fetch(`${contentUrl}/api/v1/generators`, {
  method: 'POST',
  headers: await bearer(admin!),
  body: JSON.stringify({
    name: 'slow-upstream',
    kind: 'video',
    type: 'replicate',
    base_cost: 1,
    config: {
      base_url: upstream.url,
      version: 'v1',
      poll_interval_seconds: 1,
      timeout_seconds: 3600,
      max_attempts: 3,
    },
    secrets: { api_key: 'r8-bench' },
  }),
});
if (created.status !== 201)
  throw new Error(`creating the generator answered ${created.status}: ${await created.text()}`);
const generatorId = ((await created.json()) as { id: string }).id;

// The messaging side, served here.
const [sender, recipient] = await senderAndRecipient(db, subdomain);
const chat = await stack.serve(createChatApp(stack));
const chatApi = chatClient(chat.url);

/**
 * How far ahead the first message of a phase is due: its messages are all created before then,
 * and each one's workflow wakes (MUSE_DELIVERY_WAKE_EARLY_SECONDS before its time) after that,
 * so during the burst the wake-ups too meet the generation backlog.
 */
const LEAD_SECONDS = 10 + stack.config.MUSE_DELIVERY_WAKE_EARLY_SECONDS;

/**
 * Schedules MESSAGES direct messages named `<label> <i>`, one due per second from LEAD_SECONDS
 * on, on a fresh event queue of the recipient; answers what `collectLateness` needs.
 */
async function schedule(label: string): Promise<{ label: string; queueId: string; dueAt: number[] }> {
  const queueId = String(
    (await chatApi(recipient, 'POST', '/register', { event_types: JSON.stringify(['message']) })).queue_id,
  );
  const first = Math.ceil(Date.now() / 1000) + LEAD_SECONDS;
  const dueAt = Array.from({ length: MESSAGES }, (_, i) => (first + i) * 1000);
  await Promise.all(
    dueAt.map((due, i) =>
      chatApi(sender, 'POST', '/scheduled_messages', {
        type: 'direct',
        to: JSON.stringify([recipient.id]),
        content: `${label} ${i}`,
        scheduled_delivery_timestamp: String(due / 1000),
      }),
    ),
  );
  if (Date.now() > first * 1000)
    throw new Error('scheduling took past the first due second: raise LEAD_SECONDS');
  return { label, queueId, dueAt };
}

/** Each scheduled message's lateness (ms): from its due second to its event at the recipient's long poll. */
async function collectLateness(plan: Awaited<ReturnType<typeof schedule>>): Promise<number[]> {
  const lateness = new Map<number, number>();
  let lastEventId = -1;
  while (lateness.size < MESSAGES) {
    const reply = await chatApi(recipient, 'GET', '/events', {
      queue_id: plan.queueId,
      last_event_id: String(lastEventId),
    });
    const now = Date.now();
    for (const event of reply.events as { id: number; type: string; message?: { content: string } }[]) {
      lastEventId = Math.max(lastEventId, event.id);
      const match = new RegExp(`${plan.label} (\\d+)`).exec(event.message?.content ?? '');
      if (event.type !== 'message' || !match) continue;
      const index = Number(match[1]);
      if (lateness.has(index)) throw new Error(`${plan.label} ${index} delivered twice`);
      lateness.set(index, now - plan.dueAt[index]!);
    }
  }
  return [...lateness.values()];
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return { p50_ms: Math.round(at(50)), p99_ms: Math.round(at(99)), max_ms: Math.round(sorted.at(-1)!) };
};

const inFlight = async () => {
  const [row] = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM content.generations WHERE status IN ('pending', 'processing')`,
    { type: QueryTypes.SELECT },
  );
  return Number(row!.n);
};

/**
 * One submit of the burst; a 503 (the API's pool or database busy on a loaded machine) is tried
 * again under the same Idempotency-Key, so a task is never submitted twice.
 */
async function submitOnce(index: number): Promise<void> {
  const key = `burst-${index}`;
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${contentUrl}/api/v1/generations/videos`, {
      method: 'POST',
      headers: { ...ownerHeaders, 'idempotency-key': key },
      body: JSON.stringify({ generator_id: generatorId, prompt: `burst ${index}` }),
    });
    const text = await response.text();
    if (response.ok) return;
    if (response.status !== 503 || attempt >= 10)
      throw new Error(`submit answered ${response.status}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
  }
}

// 1. Quiet: nothing else runs.
const quietLoad = os.loadavg()[0]!;
const quiet = summary(await collectLateness(await schedule('quiet')));

// 2. The burst: messages scheduled as before, then every submit at once (SUBMIT_CONNECTIONS in
// flight), each generation then polling the slow upstream while the messages fall due.
const burstPlan = await schedule('burst');
const burstLoad = os.loadavg()[0]!;
const burstStarted = performance.now();
const burstStartedAt = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: SUBMIT_CONNECTIONS }, async () => {
    while (next < GENERATIONS) {
      const index = next++;
      await submitOnce(index);
    }
  }),
);
const submitSeconds = (performance.now() - burstStarted) / 1000;
const during = summary(await collectLateness(burstPlan));
const stillInFlight = await inFlight();
if (stillInFlight === 0)
  throw new Error('the burst ended before the last message was due: raise --generations');

const [delivered] = await db.query<{ total: string; distinct: string }>(
  `SELECT count(*) AS total, count(DISTINCT content) AS distinct FROM chat.messages WHERE sender_id = :sender`,
  { replacements: { sender: sender.id }, type: QueryTypes.SELECT },
);
if (Number(delivered!.total) !== 2 * MESSAGES || Number(delivered!.distinct) !== 2 * MESSAGES)
  throw new Error(
    `scheduled messages stored: ${delivered!.total} (${delivered!.distinct} distinct), expected ${2 * MESSAGES}`,
  );

console.log(
  JSON.stringify(
    {
      generations: GENERATIONS,
      worker_processes: pools,
      upstream_seconds: UPSTREAM_SECONDS,
      wake_early_seconds: stack.config.MUSE_DELIVERY_WAKE_EARLY_SECONDS,
      submit_seconds: +submitSeconds.toFixed(1),
      generations_in_flight_after_last_due: stillInFlight,
      upstream_predictions_created: upstream.predictionsCreated(),
      scheduled_messages_each_phase: MESSAGES,
      lateness_quiet: quiet,
      lateness_during_burst: during,
      // The machine's own load when each phase began (other work on it moves the figures).
      load_average_1m: { quiet: +quietLoad.toFixed(1), burst: +burstLoad.toFixed(1) },
      first_due_after_submits_began_s: +((burstPlan.dueAt[0]! - burstStartedAt) / 1000).toFixed(1),
      p50_ratio_burst_to_quiet: ratio(during.p50_ms, quiet.p50_ms),
      p99_ratio_burst_to_quiet: ratio(during.p99_ms, quiet.p99_ms),
      delivered_once: true,
      note: 'the workers, content API, messaging API, fake upstream, Temporal dev server and Postgres share this machine',
    },
    null,
    2,
  ),
);
for (const worker of workers) await worker.stop();
await contentApi.stop();
await upstream.close();
await stack.stop();
