/**
 * Messaging API bench: subscribe requests per second, and the p99 time from an event being
 * produced to a waiting GET /events returning it. Self-contained: uses DATABASE_URL when set,
 * otherwise starts an embedded Postgres in a temporary folder.
 *
 *   node bench/chat.ts [--seconds 5] [--connections 10] [--deliveries 300]
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createChatApp, createChatUser, createOrganization } from '@muse/chat-api';
import { startBenchStack } from './lib.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    deliveries: { type: 'string', default: '300' },
  },
});

const subdomain = `bench${Date.now()}`;
// fetch() does not let us set Host, so the bench organization is the default one.
const stack = await startBenchStack({ env: { MUSE_CHAT_DEFAULT_REALM: subdomain } });
const { db } = stack;
await createOrganization(db, { subdomain, name: 'Bench' });
const user = await createChatUser(db, {
  subdomain,
  email: `bench-${subdomain}@example.com`,
  fullName: 'Bench',
  role: 100,
});
const server = await stack.serve(createChatApp(stack));
const headers = {
  authorization: `Basic ${Buffer.from(`${user.delivery_email}:${user.api_key}`).toString('base64')}`,
  'content-type': 'application/x-www-form-urlencoded',
};

async function api(
  method: string,
  apiPath: string,
  params: Record<string, string>,
): Promise<Record<string, unknown>> {
  const body = new URLSearchParams(params).toString();
  const inQuery = method === 'GET' || method === 'DELETE';
  const response = await fetch(`${server.url}/api/v1${apiPath}${inQuery ? `?${body}` : ''}`, {
    method,
    headers,
    ...(inQuery ? {} : { body }),
  });
  return (await response.json()) as Record<string, unknown>;
}

// 1. Subscribe throughput: each request subscribes the caller to one of 50 channels (created on first use).
let counter = 0;
const subscribe = await autocannon({
  url: `${server.url}/api/v1/users/me/subscriptions`,
  method: 'POST',
  headers,
  connections: Number(values.connections),
  duration: Number(values.seconds),
  requests: [
    {
      setupRequest: (request) => ({
        ...request,
        body: new URLSearchParams({
          subscriptions: JSON.stringify([{ name: `bench-${counter++ % 50}` }]),
        }).toString(),
      }),
    },
  ],
});

// 2. Delivery latency: a long-poll is waiting; an alert-word change produces an event for it.
const queue = await api('POST', '/register', { event_types: JSON.stringify(['alert_words']) });
let lastEventId = -1;
const latencies: number[] = [];
for (let i = 0; i < Number(values.deliveries); i++) {
  const waiting = api('GET', '/events', {
    queue_id: String(queue.queue_id),
    last_event_id: String(lastEventId),
  });
  await new Promise((resolve) => setTimeout(resolve, 5)); // let the poll reach its wait
  const produced = performance.now();
  void api('POST', '/users/me/alert_words', { alert_words: JSON.stringify([`w${i}`]) });
  const reply = await waiting;
  latencies.push(performance.now() - produced);
  const got = reply.events as { id: number }[];
  lastEventId = got.at(-1)?.id ?? lastEventId;
}
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;

console.log(
  JSON.stringify(
    {
      subscribe_requests_per_second: Math.round(subscribe.requests.average),
      subscribe_non_2xx: subscribe.non2xx,
      subscribe_latency_p99_ms: subscribe.latency.p99,
      event_delivery_ms: {
        p50: +pct(50).toFixed(1),
        p99: +pct(99).toFixed(1),
        max: +(latencies.at(-1) ?? NaN).toFixed(1),
        samples: latencies.length,
      },
      note: 'delivery time is measured from sending the producing request, so it includes that request',
    },
    null,
    2,
  ),
);

await stack.stop();
