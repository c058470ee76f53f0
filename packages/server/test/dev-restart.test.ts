import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { freePort, stopChild } from '@muse/core';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';

const serverMain = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** The pid of the `muse-server <name>` child of `parent` (Linux: /proc). */
function childPid(parent: number, name: string): number | undefined {
  const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
  return children.map(Number).find((pid) => {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes(name);
  });
}

const healthy = (url: string) =>
  fetch(`${url}/healthz`).then(
    (response) => response.ok,
    () => false,
  );

let database: TestDatabase;
let dev: ReturnType<typeof spawn>;
let stdout = '';
const port = await freePort();
const contentUrl = `http://127.0.0.1:${port}`;

beforeAll(async () => {
  // The run's own Postgres and Temporal, so `muse-server dev` starts only its three children.
  database = await createTestDatabase({ migrated: false });
  dev = spawn(process.execPath, [serverMain, 'dev'], {
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^MUSE_/.test(name))),
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      // The worker loads the run's prebuilt bundle (passed on by dev) instead of bundling beside the restarts.
      MUSE_WORKFLOW_BUNDLE_DIR: inject('workflowBundleDir'),
      MUSE_HOST: '127.0.0.1',
      MUSE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'muse-dev-restart-')),
      MUSE_CONTENT_PORT: String(port),
      MUSE_CHAT_PORT: String(await freePort()),
      MUSE_TEMPORAL_UI_PORT: '0',
      MUSE_CONTENT_METRICS_PORT: '0',
      MUSE_CHAT_METRICS_PORT: '0',
      MUSE_WORKER_METRICS_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  dev.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  dev.stderr!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await vi.waitUntil(() => stdout.includes('Press Ctrl-C to stop.') && dev.exitCode === null, {
    timeout: 120_000,
    interval: 100,
  });
  await vi.waitUntil(() => healthy(contentUrl), { timeout: 120_000, interval: 200 });
}, 180_000);
afterAll(async () => {
  if (dev) await stopChild(dev, 20_000);
  await database?.drop();
});

it('restarts a service that dies, with back-off, and says so instead of stopping the platform', async () => {
  expect(stdout).toMatch(/A service that exits is restarted \(after 1 s, doubling up to 30 s\)/);
  const first = childPid(dev.pid!, 'content-api')!;
  expect(first).toBeGreaterThan(0);
  process.kill(first, 'SIGKILL');
  await vi.waitUntil(
    () => stdout.includes('content-api exited (SIGKILL); restarting it in 1 s (restart 1)'),
    {
      timeout: 30_000,
      interval: 50,
    },
  );
  await vi.waitUntil(() => healthy(contentUrl), { timeout: 120_000, interval: 200 });
  const second = childPid(dev.pid!, 'content-api')!;
  expect(second).not.toBe(first);

  // Dying again right away doubles the wait.
  process.kill(second, 'SIGKILL');
  await vi.waitUntil(
    () => stdout.includes('content-api exited (SIGKILL); restarting it in 2 s (restart 2)'),
    {
      timeout: 30_000,
      interval: 50,
    },
  );
  await vi.waitUntil(() => healthy(contentUrl), { timeout: 120_000, interval: 200 });
  expect(dev.exitCode).toBeNull();
  expect(stdout).not.toMatch(/stopping the platform/);
  // The others never stopped.
  expect(stdout).not.toMatch(/(chat-api|worker) exited/);
}, 240_000);
