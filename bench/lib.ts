import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { freePort, stopChild, waitForPort } from '@muse/core';

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** Drives `url` with autocannon for a fixed time and connection count; bounded, loopback only. */
export async function load(
  name: string,
  url: string,
  options: Partial<autocannon.Options> = {},
): Promise<LoadResult> {
  const result = await autocannon({ url, connections: 20, duration: 5, ...options });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export function printResults(title: string, results: LoadResult[]): void {
  console.log(`\n${title}`);
  console.table(
    results.map((r) => ({
      target: r.name,
      'req/s': r.requestsPerSecond,
      'p50 ms': r.p50Ms,
      'p99 ms': r.p99Ms,
      errors: r.errors + r.non2xx,
    })),
  );
}

/** Starts a Node script as its own process (servers are measured apart from the load generator). */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  port: number,
): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForPort(port, 60_000);
  return { child, stop: () => stopChild(child) };
}

export { freePort };
