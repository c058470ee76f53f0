/**
 * Generation benchmark: `node bench/generation.ts [submits] [concurrency] [samples]`.
 * Starts an embedded Postgres, a Temporal dev server, a worker and the content API on this
 * machine, then measures (1) submit throughput and latency (POST /api/v1/generations/texts
 * with the built-in generator: validation, charge, ledger entry, file rows, workflow start),
 * (2) how fast the worker then completes that backlog, and (3) the median time from submit to
 * the `completed` event of a built-in image on a quiet system. The submits run before the
 * worker starts, so (1) measures the submit path alone; the API, the worker and the load
 * generator share one process and the machine's cores.
 */
import os from 'node:os';
import { QueryTypes } from 'sequelize';
import {
  FILE_STATUS_CHANNEL,
  createContentApp,
  createTokenSigner,
  type FileStatusEvent,
} from '@muse/content-api';
import { createWorker } from '@muse/temporal';
import { startBenchStack } from './lib.ts';

const SUBMITS = Number(process.argv[2] ?? 1000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const SAMPLES = Number(process.argv[4] ?? 30);
const BUILTIN_TEXT = '00000000-0000-4000-8000-000000000003';
const BUILTIN_IMAGE = '00000000-0000-4000-8000-000000000001';

const stack = await startBenchStack({ temporal: true, env: { TEMPORAL_TASK_QUEUE: 'bench' } });
const { config, db } = stack;
const api = await stack.serve(createContentApp(stack));

const [user] = await db.query<{ id: string }>(
  `INSERT INTO content.users (phone, balance) VALUES ('13800000000', 1000000000) RETURNING id`,
  { type: QueryTypes.SELECT },
);
const token = await createTokenSigner(config.MUSE_JWT_SECRET!, 3600).sign({
  id: user!.id,
  isActive: true,
  isAdmin: false,
});
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

async function submitOnce(kind: 'texts' | 'images', generatorId: string, prompt: string): Promise<string> {
  const response = await fetch(`${api.url}/api/v1/generations/${kind}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ generator_id: generatorId, prompt }),
  });
  const body = (await response.json()) as { file_ids: string[] };
  if (response.status !== 202) throw new Error(`submit answered ${response.status}: ${JSON.stringify(body)}`);
  return body.file_ids[0]!;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

// Warm-up: connections, compiled schemas, the worker's first workflow.
for (let i = 0; i < 20; i++) await submitOnce('texts', BUILTIN_TEXT, `warm-up ${i}`);

// (1) Submit throughput and latency, CONCURRENCY requests in flight.
const latencies: number[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < SUBMITS) {
      const index = next++;
      const t0 = performance.now();
      await submitOnce('texts', BUILTIN_TEXT, `bench ${index}`);
      latencies.push(performance.now() - t0);
    }
  }),
);
const elapsedSeconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);

// (2) The worker drains the backlog (warm-up and measured submits).
const { worker, run } = await createWorker({
  address: config.TEMPORAL_ADDRESS!,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: 'bench',
  deps: stack,
});
const running = run();
const drainStarted = performance.now();
for (;;) {
  const [row] = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM content.generations WHERE status IN ('pending', 'processing')`,
    {
      type: QueryTypes.SELECT,
    },
  );
  if (Number(row!.n) === 0) break;
  await new Promise((resolve) => setTimeout(resolve, 250));
}

const drainSeconds = (performance.now() - drainStarted) / 1000;

// (3) Submit → completed, one task at a time, timed by the file's `completed` event.
const waiters = new Map<string, () => void>();
await stack.events.subscribe(FILE_STATUS_CHANNEL, (payload) => {
  const event = payload as FileStatusEvent;
  if (event.status === 'completed') waiters.get(event.file_id)?.();
});
const endToEnd: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const t0 = performance.now();
  let fileId = '';
  await new Promise<void>((resolve) => {
    void submitOnce('images', BUILTIN_IMAGE, `end to end ${i}`).then((id) => {
      fileId = id;
      waiters.set(id, resolve);
    });
  });
  waiters.delete(fileId);
  endToEnd.push(performance.now() - t0);
}
endToEnd.sort((a, b) => a - b);

console.log(
  [
    `generation bench (${os.cpus().length} cores; API, worker and load in one process)`,
    `  submits:            ${SUBMITS} at concurrency ${CONCURRENCY} in ${elapsedSeconds.toFixed(2)} s`,
    `  submits/s:          ${(SUBMITS / elapsedSeconds).toFixed(1)}`,
    `  submit latency p50: ${percentile(latencies, 50).toFixed(1)} ms`,
    `  submit latency p99: ${percentile(latencies, 99).toFixed(1)} ms`,
    `  worker backlog:     ${SUBMITS + 20} built-in text tasks completed in ${drainSeconds.toFixed(2)} s (${((SUBMITS + 20) / drainSeconds).toFixed(1)} tasks/s)`,
    `  submit → completed (built-in image, ${SAMPLES} sequential): median ${percentile(endToEnd, 50).toFixed(1)} ms, p99 ${percentile(endToEnd, 99).toFixed(1)} ms`,
  ].join('\n'),
);

worker.shutdown();
await running;
await stack.stop();
