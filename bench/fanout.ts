/**
 * Messaging fan-out bench: `--subscribers` users, each with one event queue (`POST /register`)
 * long-polling `GET /events` on a chat-api process of its own; then `--messages` channel messages,
 * one after another, to a channel they all subscribe to. For each message, the time from sending
 * it until each poll is answered with it (p50/p99/max over every delivery), and the server's
 * resident memory idle and under the load. Next to it, the same pollers against a bare node:http
 * relay answering its held polls from memory (bench/bare.ts poll-relay), as a ratio, with the CPU
 * time per message of the server and of Postgres.
 *
 *   node bench/fanout.ts [--subscribers 1000] [--messages 10] [--cpu-prof-dir DIR]
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchStack } from './lib.ts';
import { basic, form, sendOver } from './chat-client.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '1000' },
    messages: { type: 'string', default: '10' },
    'cpu-prof-dir': { type: 'string' },
  },
});

const lib = () => import('./lib.ts');

const subscriberCount = Number(values.subscribers);
const messageCount = Number(values.messages);
const agent = new http.Agent({ keepAlive: true, maxSockets: subscriberCount + 20 });

const send = (port: number, method: string, path: string, headers: Record<string, string>, body?: string) =>
  sendOver(agent, port, method, path, headers, body);

/** Waits until the process has used (almost) no CPU for a while: the re-polls have settled. */
async function settled(pid: number, limitMs = 30_000): Promise<void> {
  const { processCpuMs } = await lib();
  const until = Date.now() + limitMs;
  let quiet = 0;
  let last = processCpuMs(pid);
  while (Date.now() < until && quiet < 3) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = processCpuMs(pid);
    quiet = now - last <= 10 ? quiet + 1 : 0;
    last = now;
  }
}

interface Target {
  name: string;
  port: number;
  pid: number;
  /** Per poller: how to poll its queue after `lastEventId`. */
  pollers: { path: (lastEventId: number) => string; headers: Record<string, string> }[];
  sendMessage(n: number): Promise<void>;
  stop(): Promise<void>;
}

async function chatTarget(stack: BenchStack): Promise<Target> {
  const { QueryTypes } = await import('sequelize');
  const { createChatUser, createOrganization } = await import('@muse/chat-api');
  const { freePort, startProcess } = await lib();
  const subdomain = `fanout${Date.now()}`;
  const realm = await createOrganization(stack.db, { subdomain, name: 'Fan-out' });
  const sender = await createChatUser(stack.db, {
    subdomain,
    email: `sender@${subdomain}.example.com`,
    fullName: 'Sender',
    role: 100,
  });
  // The subscribers and their subscriptions, in bulk (not measured).
  const users = await stack.db.query<{ id: number; delivery_email: string; api_key: string }>(
    `INSERT INTO chat.users (realm_id, delivery_email, full_name, api_key)
     SELECT :realm, 'fan' || g || '@example.com', 'Fan ' || g, md5(random()::text || g)
       FROM generate_series(1, :n) AS g
     RETURNING id, delivery_email, api_key`,
    { replacements: { realm: realm.id, n: subscriberCount }, type: QueryTypes.SELECT },
  );
  const port = await freePort();
  const server = await startProcess(
    [
      ...(values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : []),
      fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url)),
      'chat-api',
    ],
    {
      ...stack.serverEnv,
      MUSE_CHAT_PORT: String(port),
      MUSE_CHAT_DEFAULT_REALM: subdomain,
      // No heartbeat answers during the run: every answer is a delivery.
      MUSE_CHAT_HEARTBEAT_MS: '600000',
    },
    port,
    180_000,
  );
  const senderHeaders = basic(sender.delivery_email, sender.api_key);
  const created = await send(
    port,
    'POST',
    '/api/v1/users/me/subscriptions',
    senderHeaders,
    form({ subscriptions: '[{"name":"fanout"}]' }),
  );
  if (created.status !== 200) throw new Error(`subscribe: ${created.status} ${created.body}`);
  await stack.db.query(
    `INSERT INTO chat.subscriptions (user_id, stream_id, color)
     SELECT u.id, s.id, '#76ce90' FROM chat.users u, chat.streams s
     WHERE u.realm_id = :realm AND s.realm_id = :realm AND s.name = 'fanout' AND u.id <> :sender`,
    { replacements: { realm: realm.id, sender: sender.id } },
  );
  // One queue per subscriber, registered through the API, 20 at a time (not measured).
  const pollers: Target['pollers'] = [];
  for (let i = 0; i < users.length; i += 20) {
    const batch = users.slice(i, i + 20);
    pollers.push(
      ...(await Promise.all(
        batch.map(async (user) => {
          const headers = basic(user.delivery_email, user.api_key);
          const answer = await send(
            port,
            'POST',
            '/api/v1/register',
            headers,
            form({ event_types: '["message"]' }),
          );
          if (answer.status !== 200) throw new Error(`register: ${answer.status} ${answer.body}`);
          const { queue_id: queueId } = JSON.parse(answer.body) as { queue_id: string };
          return {
            path: (lastEventId: number) =>
              `/api/v1/events?${form({ queue_id: queueId, last_event_id: String(lastEventId) })}`,
            headers,
          };
        }),
      )),
    );
  }
  return {
    name: `chat-api (own process, Postgres queues)`,
    port,
    pid: server.child.pid!,
    pollers,
    async sendMessage(n) {
      const answer = await send(
        port,
        'POST',
        '/api/v1/messages',
        senderHeaders,
        form({ type: 'stream', to: 'fanout', topic: 'bench', content: `fanout ${n}` }),
      );
      if (answer.status !== 200) throw new Error(`send: ${answer.status} ${answer.body}`);
    },
    stop: server.stop,
  };
}

async function bareTarget(): Promise<Target> {
  const { startBare } = await lib();
  const bare = await startBare('poll-relay');
  const port = bare.port;
  return {
    name: 'bare node:http relay (own process, in memory)',
    port,
    pid: bare.pid,
    pollers: Array.from({ length: subscriberCount }, () => ({ path: () => '/events', headers: {} })),
    async sendMessage(n) {
      await send(
        port,
        'POST',
        '/send',
        { 'content-type': 'application/x-www-form-urlencoded' },
        `content=fanout+${n}`,
      );
    },
    stop: bare.stop,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Sends the messages one after another; every poller re-polls as soon as it is answered. */
async function measure(target: Target, postgresCpuMs: () => number) {
  const { cpuMeter, rssBytes } = await lib();
  const rssMiB = (pid: number) => rssBytes(pid) / 2 ** 20;
  const idleMiB = rssMiB(target.pid);
  let peakMiB = idleMiB;
  let expected = -1;
  let sentAt = 0;
  let answered = 0;
  let allAnswered: () => void = () => {};
  let inFlight = 0;
  let stopping = false;
  const latencies: number[] = [];
  const lastDelivery: number[] = [];
  const sendAnswered: number[] = [];
  const failures: string[] = [];
  const poll = async (poller: Target['pollers'][number]) => {
    let lastEventId = -1;
    while (!stopping) {
      inFlight++;
      const answer = await send(target.port, 'GET', poller.path(lastEventId), poller.headers).catch(
        (error: Error) => ({ status: 0, body: error.message }),
      );
      inFlight--;
      if (stopping) return;
      if (answer.status !== 200) {
        failures.push(`${answer.status} ${answer.body.slice(0, 200)}`);
        return;
      }
      const { events } = JSON.parse(answer.body) as {
        events: { id: number; message?: { content: string } }[];
      };
      lastEventId = events.at(-1)?.id ?? lastEventId;
      // The chat API sends the rendered content (`<p>fanout 3</p>`).
      if (events.some((e) => e.message?.content.replace(/<[^>]*>/g, '') === `fanout ${expected}`)) {
        latencies.push(performance.now() - sentAt);
        if (++answered === target.pollers.length) allAnswered();
      }
    }
  };
  const running = target.pollers.map(poll);
  const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, rssMiB(target.pid))), 50);
  const cpu: Record<string, number> = {};
  try {
    for (let n = 0; n < messageCount; n++) {
      // Every poll is waiting again and the server is idle before the next message.
      while (inFlight < target.pollers.length && failures.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await settled(target.pid);
      if (failures.length) throw new Error(`polls failed: ${failures.slice(0, 3).join('; ')}`);
      const meter = cpuMeter({ server: target.pid, Postgres: postgresCpuMs });
      answered = 0;
      expected = n;
      const done = new Promise<void>((resolve, reject) => {
        allAnswered = resolve;
        const late = () =>
          reject(new Error(`message ${n}: ${answered} of ${target.pollers.length} polls answered in 60 s`));
        setTimeout(late, 60_000).unref();
      });
      done.catch(() => {}); // awaited below, after the send
      sentAt = performance.now();
      await target.sendMessage(n);
      sendAnswered.push(performance.now() - sentAt);
      await done;
      lastDelivery.push(performance.now() - sentAt);
      // Up to the last answer, over every message (the settling between them is left out).
      for (const [name, ms] of Object.entries(meter())) cpu[name] = (cpu[name] ?? 0) + ms / messageCount;
    }
  } finally {
    clearInterval(sampler);
    stopping = true;
    agent.destroy(); // the waiting polls end with their sockets, so the server stops at once
    await target.stop();
    await Promise.allSettled(running);
  }
  latencies.sort((a, b) => a - b);
  lastDelivery.sort((a, b) => a - b);
  return {
    target: target.name,
    deliveries: latencies.length,
    'p50 ms': +percentile(latencies, 50).toFixed(1),
    'p99 ms': +percentile(latencies, 99).toFixed(1),
    'max ms': +(latencies.at(-1) ?? NaN).toFixed(1),
    'all answered, median ms': +percentile(lastDelivery, 50).toFixed(1),
    'send answered, median ms': +percentile(
      sendAnswered.sort((a, b) => a - b),
      50,
    ).toFixed(1),
    'server CPU ms/message': +(cpu.server ?? NaN).toFixed(1),
    'Postgres CPU ms/message': +(cpu.Postgres ?? NaN).toFixed(1),
    'RSS idle MiB': +idleMiB.toFixed(0),
    'RSS peak MiB': +peakMiB.toFixed(0),
  };
}

const { startBenchStack } = await lib();
const stack = await startBenchStack();
try {
  const bare = await measure(await bareTarget(), stack.postgresCpuMs);
  const chat = await measure(await chatTarget(stack), stack.postgresCpuMs);
  console.log(
    `\nFan-out: ${messageCount} channel messages to ${subscriberCount} long-polling subscribers (one queue each)`,
  );
  console.table([bare, chat]);
  const ratio = (key: 'p50 ms' | 'p99 ms') => (chat[key] / bare[key]).toFixed(1);
  console.log(
    `ratio chat/bare: p50 ${ratio('p50 ms')}x, p99 ${ratio('p99 ms')}x; ` +
      `target p99 < 200 ms: ${chat['p99 ms'] < 200 ? 'met' : 'not met'}; ` +
      `RSS under load < 150 MB: ${chat['RSS peak MiB'] * 1.048576 < 150 ? 'met' : 'not met'}`,
  );
} finally {
  await stack.stop();
}
