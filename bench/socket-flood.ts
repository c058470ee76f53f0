/**
 * Unauthenticated socket flood against one `muse-server content-api` process (issue 21): 20,000
 * connection attempts, half plain WebSocket upgrades without a token, half socket.io (Engine.IO)
 * connections that never join a namespace and are held open, from one address, `--concurrency` at
 * a time, while a client polls `/healthz` and `/users/me`. Prints how the attempts were answered,
 * whether every poll was answered, the poll latency against the same poll before the flood, and
 * the process's RSS against the documented cap.
 *
 *   node bench/socket-flood.ts [--attempts 20000] [--concurrency 500]
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { QueryTypes } from 'sequelize';
import WebSocket from 'ws';
import { createTokenSigner } from '@muse/content-api';
import { freePort, rssBytes, startBenchStack, startProcess } from './lib.ts';

const { values } = parseArgs({
  options: {
    attempts: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '500' },
  },
});
const attempts = Number(values.attempts);
const concurrency = Number(values.concurrency);
/** The documented cap (README, MUSE_WS_MAX_PENDING): what refused and held sockets may add to RSS. */
const CAP_MB = 64;
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));
const mb = (bytes: number) => bytes / 2 ** 20;

const stack = await startBenchStack();
const [user] = await stack.db.query<{ id: string }>(
  `INSERT INTO content.users (phone) VALUES ('13900000021') RETURNING id`,
  { type: QueryTypes.SELECT },
);
const token = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, 3600).sign({
  id: user!.id,
  isActive: true,
  isAdmin: false,
});
const port = await freePort();
const server = await startProcess(
  [serverMain, 'content-api'],
  { ...stack.serverEnv, MUSE_CONTENT_PORT: String(port) },
  port,
  180_000,
);
const pid = server.child.pid!;
const url = `http://127.0.0.1:${port}`;
const wsUrl = url.replace(/^http/, 'ws');

/** One unauthenticated attempt: the HTTP status of a refusal, or `held` for an accepted connection. */
function attempt(i: number, held: WebSocket[]): Promise<string> {
  const target =
    i % 2 === 0
      ? `${wsUrl}/api/v1/conversations/${randomUUID()}/ws`
      : `${wsUrl}/socket.io/?EIO=4&transport=websocket`;
  return new Promise((resolve) => {
    const ws = new WebSocket(target);
    ws.once('unexpected-response', (_req, res) => {
      resolve(String(res.statusCode));
      ws.terminate();
    });
    ws.once('open', () => {
      held.push(ws);
      resolve('held');
    });
    ws.once('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code ?? error.message}`));
  });
}

/** Polls /healthz and /users/me until `stop`; every answer's status and latency. */
function poll(stop: { done: boolean }) {
  const answers: { path: string; status: number; ms: number }[] = [];
  const run = async () => {
    while (!stop.done) {
      for (const [path, headers] of [
        ['/healthz', {}],
        ['/api/v1/users/me', { authorization: `Bearer ${token}` }],
      ] as const) {
        const started = performance.now();
        const status = await fetch(`${url}${path}`, { headers, signal: AbortSignal.timeout(10_000) }).then(
          (response) => response.status,
          () => 0,
        );
        answers.push({ path, status, ms: performance.now() - started });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { answers, running: run() };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? 0;

try {
  await fetch(`${url}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
  const idleRss = mb(rssBytes(pid));
  // The baseline: the same poll for 3 s before the flood.
  const quiet = { done: false };
  const before = poll(quiet);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  quiet.done = true;
  await before.running;

  const stop = { done: false };
  const during = poll(stop);
  let peakRss = idleRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, mb(rssBytes(pid)))), 200);
  const held: WebSocket[] = [];
  const outcomes = new Map<string, number>();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < attempts) {
        const outcome = await attempt(next++, held);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    }),
  );
  const floodSeconds = (performance.now() - started) / 1000;
  stop.done = true;
  await during.running;
  clearInterval(sampler);
  for (const ws of held) ws.terminate();

  console.log(
    `\nsocket flood: ${attempts} unauthenticated attempts in ${floodSeconds.toFixed(1)} s, ${concurrency} at a time, one address`,
  );
  console.table([...outcomes].map(([outcome, count]) => ({ outcome, count })));
  const rows = [
    ['before the flood', before.answers],
    ['during the flood', during.answers],
  ] as const;
  console.table(
    rows.map(([when, answers]) => ({
      when,
      requests: answers.length,
      answered: answers.filter((a) => a.status === 200).length,
      'unanswered or not 200': answers.filter((a) => a.status !== 200).length,
      'p99 ms': +p99(answers.map((a) => a.ms)).toFixed(1),
      'max ms': +Math.max(...answers.map((a) => a.ms)).toFixed(1),
    })),
  );
  const ratio = p99(during.answers.map((a) => a.ms)) / Math.max(0.1, p99(before.answers.map((a) => a.ms)));
  console.log(`poll p99 during / before the flood: ${ratio.toFixed(1)}x`);
  console.log(
    `content-api RSS: idle ${idleRss.toFixed(0)} MB, peak ${peakRss.toFixed(0)} MB, growth ${(peakRss - idleRss).toFixed(0)} MB (documented cap ${CAP_MB} MB: ${peakRss - idleRss <= CAP_MB ? 'within' : 'over'})`,
  );
} finally {
  await server.stop();
  await stack.stop();
}
