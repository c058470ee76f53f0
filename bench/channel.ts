/**
 * Conversation channel bench: `--sockets` plain WebSockets on each of two content-API processes
 * (one conversation, shared Postgres), then `--messages` posts one after another; for each, the
 * time until every socket on both processes has it (fan-out latency, p50/p99 over all
 * deliveries), and each process's resident memory per socket. Next to it, the same against a
 * bare single-process `ws` relay (bench/bare.ts ws-relay), as a ratio, with the CPU time per
 * message of each process and of Postgres.
 *
 *   node bench/channel.ts [--sockets 1000] [--messages 30]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { QueryTypes } from 'sequelize';
import { createTokenSigner } from '@muse/content-api';
import {
  collectGarbage,
  cpuMeter,
  freePort,
  rssBytes,
  serverNodeOptions,
  startBare,
  startBenchStack,
  startProcess,
} from './lib.ts';

const { values } = parseArgs({
  options: { sockets: { type: 'string', default: '1000' }, messages: { type: 'string', default: '30' } },
});
const socketsPerProcess = Number(values.sockets);
const messages = Number(values.messages);
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));

const stack = await startBenchStack();
const [user] = await stack.db.query<{ id: string }>(
  `INSERT INTO content.users (phone) VALUES ('139${String(Date.now()).slice(-8)}') RETURNING id`,
  { type: QueryTypes.SELECT },
);
const [conversation] = await stack.db.query<{ id: string }>(
  `INSERT INTO content.conversations (owner_id, title) VALUES (:owner, 'bench') RETURNING id`,
  { replacements: { owner: user!.id }, type: QueryTypes.SELECT },
);
const token = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, 3600).sign({
  id: user!.id,
  isActive: true,
  isAdmin: false,
});

interface Target {
  name: string;
  urls: string[];
  pids: number[];
  /** Each process's inspector port: the bench has it collect its garbage before reading its memory. */
  inspectPorts: number[];
  /** The frame a client sends to post message `n`, and how a received frame names its n. */
  post(n: number): string;
  received(data: string): number | undefined;
  stop(): Promise<void>;
}

async function channelTarget(): Promise<Target> {
  const env = {
    ...stack.serverEnv,
    MUSE_WS_MAX_SOCKETS_PER_USER: String(socketsPerProcess + 10),
    // Every bench socket comes from 127.0.0.1.
    MUSE_WS_MAX_SOCKETS_PER_ADDRESS: String(socketsPerProcess + 10),
    MUSE_WS_RATE_LIMIT: String(messages + 10),
  };
  const ports = [await freePort(), await freePort()];
  const inspectPorts = [await freePort(), await freePort()];
  const processes: Awaited<ReturnType<typeof startProcess>>[] = [];
  // One after the other, with time to spare: a busy machine starts Node slowly.
  for (const [i, port] of ports.entries()) {
    processes.push(
      await startProcess(
        [...serverNodeOptions(), `--inspect=127.0.0.1:${inspectPorts[i]}`, serverMain, 'content-api'],
        { ...env, MUSE_CONTENT_PORT: String(port) },
        port,
        180_000,
      ),
    );
  }
  return {
    name: 'conversation channel (2 processes, Postgres fan-out)',
    urls: ports.map(
      (port) => `ws://127.0.0.1:${port}/api/v1/conversations/${conversation!.id}/ws?token=${token}`,
    ),
    pids: processes.map(({ child }) => child.pid!),
    inspectPorts,
    post: (n) =>
      JSON.stringify({ type: 'post', content: `bench ${n}`, client_id: `bench-${Date.now()}-${n}` }),
    received(data) {
      const frame = JSON.parse(data) as { type: string; message?: { content: string } };
      return frame.type === 'message' ? Number(frame.message!.content.slice('bench '.length)) : undefined;
    },
    stop: async () => void (await Promise.all(processes.map(({ stop }) => stop()))),
  };
}

async function bareTarget(): Promise<Target> {
  const inspectPort = await freePort();
  const bare = await startBare('ws-relay', {}, [`--inspect=127.0.0.1:${inspectPort}`]);
  return {
    name: 'bare ws relay (1 process, in memory)',
    urls: [`ws://127.0.0.1:${bare.port}`, `ws://127.0.0.1:${bare.port}`],
    pids: [bare.pid, bare.pid],
    inspectPorts: [inspectPort],
    post: (n) => JSON.stringify({ n }),
    received: (data) => (JSON.parse(data) as { n: number }).n,
    stop: bare.stop,
  };
}

async function open(url: string, onMessage: (data: string) => void): Promise<WebSocket> {
  const socket = new WebSocket(url);
  socket.on('message', (data) => onMessage(data.toString()));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

async function measure(target: Target) {
  const latencies: number[] = [];
  let waiting: { n: number; sentAt: number; left: number; done: () => void } | undefined;
  const onMessage = (data: string) => {
    if (waiting && target.received(data) === waiting.n) {
      latencies.push(performance.now() - waiting.sentAt);
      if (--waiting.left === 0) waiting.done();
    }
  };
  const sockets: WebSocket[] = [];
  // Opened in batches of 50 (a burst of thousands of handshakes is not what is measured), half
  // on each process, then the other half: memory per socket is the growth of RSS over the second
  // half, when the processes are past their start-up garbage, read after a full garbage collection
  // (before it, the RSS holds the handshakes' garbage too: 37-41 KiB per socket in issue 15's runs).
  const openHalf = async () => {
    for (const url of target.urls) {
      for (let i = 0; i < socketsPerProcess / 2; i += 50) {
        const batch = Math.min(50, socketsPerProcess / 2 - i);
        sockets.push(...(await Promise.all(Array.from({ length: batch }, () => open(url, onMessage)))));
      }
    }
  };
  const pids = [...new Set(target.pids)];
  // Each process's RSS after a full garbage collection: what its sockets hold.
  const memory = async () => {
    for (const port of target.inspectPorts) await collectGarbage(port);
    return pids.map(rssBytes);
  };
  const grownPerSocket = (before: number[], after: number[]) =>
    Number(
      (after.reduce((sum, value, i) => sum + value - before[i]!, 0) / (sockets.length / 2) / 1024).toFixed(1),
    );
  await openHalf();
  const half = await memory();
  await openHalf();
  const full = await memory();
  const sender = sockets[0]!;
  const meter = cpuMeter({
    ...Object.fromEntries(pids.map((pid, i) => [`process ${i + 1}`, pid])),
    Postgres: stack.postgresCpuMs,
  });
  for (let n = 0; n < messages; n++) {
    await new Promise<void>((done) => {
      waiting = { n, sentAt: performance.now(), left: sockets.length, done };
      sender.send(target.post(n));
    });
  }
  const cpuPerMessage = Object.entries(meter())
    .map(([name, ms]) => `${name} ${(ms / messages).toFixed(1)}`)
    .join(', ');
  for (const socket of sockets) socket.terminate();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    target: target.name,
    sockets: sockets.length,
    deliveries: latencies.length,
    'p50 ms': Number(at(0.5).toFixed(1)),
    'p99 ms': Number(at(0.99).toFixed(1)),
    'KiB/socket': grownPerSocket(half, full),
    'CPU ms/message': cpuPerMessage,
  };
}

const results = [];
for (const make of [bareTarget, channelTarget]) {
  const target = await make();
  try {
    results.push(await measure(target));
  } finally {
    await target.stop();
  }
}
await stack.stop();

console.log(
  `\nConversation channel: ${socketsPerProcess} sockets per process, ${messages} messages, fan-out to every socket`,
);
console.table(results);
const [bare, channel] = results as [(typeof results)[0], (typeof results)[0]];
console.log(
  `ratio channel/bare: p50 ${(channel['p50 ms'] / bare['p50 ms']).toFixed(1)}x, p99 ${(channel['p99 ms'] / bare['p99 ms']).toFixed(1)}x, ` +
    `memory per socket ${(channel['KiB/socket'] / bare['KiB/socket']).toFixed(1)}x; ` +
    `targets: p99 ≤ 1.3× bare ${channel['p99 ms'] <= 1.3 * bare['p99 ms'] ? 'met' : 'not met'}, ` +
    `≤ 16 KiB per socket ${channel['KiB/socket'] <= 16 ? 'met' : 'not met'}`,
);
