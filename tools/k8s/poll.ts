/**
 * Polling for the cluster harness (image-check.ts, test/k8s/cluster.e2e.ts): the node and the
 * image start at the machine's pace, so every wait is on a condition with a deadline, never a sleep.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `check` every `intervalMs` until it returns something other than undefined or false and
 * returns that; a throwing check counts as not yet (its last error is in the timeout's message).
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 180_000, intervalMs = 500 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(`${what}: not after ${timeoutMs / 1000} s${last ? ` (${String(last)})` : ''}`);
}

/** Whether `url` answers 200 within two seconds. */
export async function answers200(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}
