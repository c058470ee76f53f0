/**
 * Generation benchmark: `node bench/generation.ts [submits] [connections] [samples]`.
 * Starts an embedded Postgres, a Temporal dev server, and the content API and the worker as
 * their own `muse-server` processes (as deployed; the load generator is this process), then
 * measures (1) submit throughput and latency at `connections` requests in flight (POST
 * /api/v1/generations/texts with the built-in generator: validation, charge, ledger entry, file
 * rows, workflow start) with no worker running, (2) how fast one worker process then completes
 * that backlog, and (3) the time from submit to the `completed` event of a built-in image,
 * one at a time. Beside each figure: the CPU time per item of every process (from /proc), which
 * a busy machine distorts less than rates. Runs against older commits too (it only needs
 * `muse-server content-api` and `worker`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { QueryTypes } from 'sequelize';
import { FILE_STATUS_CHANNEL, type FileStatusEvent } from '@muse/content-api';
import { payloadsOf } from '@muse/core';
import { benchAccount, freePort, processCpuMs, startBenchStack, startProcess } from './lib.ts';

const SUBMITS = Number(process.argv[2] ?? 1000);
const CONNECTIONS = Number(process.argv[3] ?? 50);
const SAMPLES = Number(process.argv[4] ?? 30);
const BUILTIN_TEXT = '00000000-0000-4000-8000-000000000003';
const BUILTIN_IMAGE = '00000000-0000-4000-8000-000000000001';
const TARGET = { submitsPerSecond: 400, submitP99Ms: 50, tasksPerSecond: 150 };
// issue 15's "before" (quiet machine, API + worker + load in one process, 16 connections).
const BEFORE = { submitsPerSecond: 64.5, submitP99Ms: 845.2, tasksPerSecond: 21.3, endToEndMedianMs: 150.9 };
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));

const stack = await startBenchStack({ temporal: true });
const { db } = stack;
const env = { ...stack.serverEnv, TEMPORAL_TASK_QUEUE: 'bench', MUSE_DATA_DIR: stack.workDir };
const apiPort = await freePort();
const api = await startProcess(
  [serverMain, 'content-api'],
  { ...env, MUSE_CONTENT_PORT: String(apiPort) },
  apiPort,
  180_000,
);
const apiUrl = `http://127.0.0.1:${apiPort}`;

const headers = await benchAccount(stack);

async function submitOnce(kind: 'texts' | 'images', generatorId: string, prompt: string): Promise<string> {
  const response = await fetch(`${apiUrl}/api/v1/generations/${kind}`, {
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

/** CPU time (user + system) of a process and its children, in ms, from /proc. */
function cpuMs(pid: number): number {
  const own = (id: number) => {
    try {
      return processCpuMs(id);
    } catch {
      return 0; // it ended meanwhile
    }
  };
  return own(pid) + childrenOf(pid).reduce((sum, child) => sum + cpuMs(child), 0);
}
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim())
      .map(Number);
  } catch {
    return [];
  }
}
const ownChildNamed = (needle: string) =>
  childrenOf(process.pid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle));
const processes: Record<string, number | undefined> = {
  api: api.child.pid,
  worker: undefined,
  temporal: ownChildNamed('start-dev'),
  postgres: ownChildNamed('postgres'),
};
const cpuSnapshot = () =>
  Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, pid ? cpuMs(pid) : 0]));
const cpuPerItem = (before: Record<string, number>, items: number) =>
  Object.entries(cpuSnapshot())
    .filter(([name]) => processes[name])
    .map(([name, ms]) => `${name} ${((ms - before[name]!) / items).toFixed(2)}`)
    .join(', ');
const ratio = (value: number, reference: number) => `${(value / reference).toFixed(2)}x`;

// Warm-up: connections, compiled schemas, Temporal's first starts.
for (let i = 0; i < 20; i++) await submitOnce('texts', BUILTIN_TEXT, `warm-up ${i}`);

// (1) Submit throughput and latency, CONNECTIONS requests in flight, no worker running.
const load = os.loadavg()[0]!;
let cpuBefore = cpuSnapshot();
const latencies: number[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    while (next < SUBMITS) {
      const index = next++;
      const t0 = performance.now();
      await submitOnce('texts', BUILTIN_TEXT, `bench ${index}`);
      latencies.push(performance.now() - t0);
    }
  }),
);
const elapsedSeconds = (performance.now() - started) / 1000;
const submitCpu = cpuPerItem(cpuBefore, SUBMITS);
latencies.sort((a, b) => a - b);
// Workflows may still be starting (off the request path): the backlog is complete once all run.
const total = SUBMITS + 20;
const startsSettled = performance.now();
while ((await stack.temporal.workflow.count('WorkflowType = "generationWorkflow"')).count < total) {
  if (performance.now() - startsSettled > 300_000) throw new Error('workflows did not all start');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const startLagSeconds = (performance.now() - startsSettled) / 1000;

// (2) One worker process drains the backlog.
const workerPort = await freePort();
cpuBefore = cpuSnapshot();
const drainStarted = performance.now();
const worker = await startProcess(
  [serverMain, 'worker'],
  { ...env, MUSE_WORKER_METRICS_PORT: String(workerPort) },
  workerPort,
  180_000,
);
processes.worker = worker.child.pid;
// Its start (bundling the workflow code) is not drain work.
const workerStartCpu = cpuMs(worker.child.pid!);
const workerReadySeconds = (performance.now() - drainStarted) / 1000;
for (;;) {
  const [row] = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM content.generations WHERE status IN ('pending', 'processing')`,
    { type: QueryTypes.SELECT },
  );
  if (Number(row!.n) === 0) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const drainSeconds = (performance.now() - drainStarted) / 1000 - workerReadySeconds;
const drainCpu = cpuPerItem({ ...cpuBefore, worker: workerStartCpu }, total);

// (3) Submit → completed, one task at a time, timed by the file's `completed` event.
const waiters = new Map<string, () => void>();
await stack.bus.subscribe(FILE_STATUS_CHANNEL, (payload) => {
  for (const event of payloadsOf(payload) as FileStatusEvent[])
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

const submitsPerSecond = SUBMITS / elapsedSeconds;
const p99 = percentile(latencies, 99);
const tasksPerSecond = total / drainSeconds;
const median = percentile(endToEnd, 50);
console.log(
  [
    `generation bench (${os.cpus().length} cores, load average ${load.toFixed(2)}; API and worker in their own processes)`,
    `  submits:            ${SUBMITS} at ${CONNECTIONS} connections in ${elapsedSeconds.toFixed(2)} s`,
    `  submits/s:          ${submitsPerSecond.toFixed(1)}   target ≥ ${TARGET.submitsPerSecond}: ${ratio(submitsPerSecond, TARGET.submitsPerSecond)}; issue 15 before ${BEFORE.submitsPerSecond}: ${ratio(submitsPerSecond, BEFORE.submitsPerSecond)}`,
    `  submit latency p50: ${percentile(latencies, 50).toFixed(1)} ms`,
    `  submit latency p99: ${p99.toFixed(1)} ms   target < ${TARGET.submitP99Ms}: ${ratio(p99, TARGET.submitP99Ms)}; before ${BEFORE.submitP99Ms}: ${ratio(p99, BEFORE.submitP99Ms)}`,
    `  CPU ms per submit:  ${submitCpu}`,
    `  workflows all started ${startLagSeconds.toFixed(2)} s after the last 202`,
    `  worker backlog:     ${total} built-in text tasks completed in ${drainSeconds.toFixed(2)} s (${tasksPerSecond.toFixed(1)} tasks/s)   target ≥ ${TARGET.tasksPerSecond}: ${ratio(tasksPerSecond, TARGET.tasksPerSecond)}; before ${BEFORE.tasksPerSecond}: ${ratio(tasksPerSecond, BEFORE.tasksPerSecond)}`,
    `  CPU ms per task:    ${drainCpu}`,
    `  submit → completed (built-in image, ${SAMPLES} sequential): median ${median.toFixed(1)} ms, p99 ${percentile(endToEnd, 99).toFixed(1)} ms   before median ${BEFORE.endToEndMedianMs}: ${ratio(median, BEFORE.endToEndMedianMs)}`,
  ].join('\n'),
);

await worker.stop();
await api.stop();
await stack.stop();
