import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { freePort, loadConfig, type Config } from '@muse/core';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { READY_TIMEOUT_MS, startMuseServer, waitUntilServing, type MuseProcess } from './processes.ts';
import type { TestStack } from './stack.ts';

const STARTUP_TIMEOUT_MS = 3 * READY_TIMEOUT_MS;

export interface ProcessStack {
  database: TestDatabase;
  config: Config;
  contentUrl: string;
  chatUrl: string;
  /** Every messaging API process's URL: `chatUrl` first, then the `moreChatApis`. */
  chatUrls: string[];
  /** Each process's /metrics listener, by process. */
  metricsUrls: Record<ProcessName, string>;
  processes: MuseProcess[];
  /** What the HTTP helpers of test/support read (URLs, the database, the token secret). */
  asTestStack(): TestStack;
  stop(): Promise<void>;
}

type ProcessName = 'content-api' | 'chat-api' | 'worker';

/**
 * The platform as production runs it: content API, messaging API and worker as three
 * `muse-server` processes on one database and task queue. `env` is added to every process's,
 * `envOf(database)` to one process's (e.g. a DATABASE_URL through a pooler). `moreChatApis`:
 * messaging API processes beside the first, as replicas (each with chat-api's `envOf`).
 */
export async function startProcessStack(
  env: Record<string, string> = {},
  envOf: (database: TestDatabase) => Partial<Record<ProcessName, Record<string, string>>> = () => ({}),
  { moreChatApis = 0 } = {},
): Promise<ProcessStack> {
  const database = await createTestDatabase();
  const [content, chat, contentMetrics, chatMetrics, workerMetrics] = (await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  )) as [number, number, number, number, number];
  const taskQueue = `test-${randomBytes(6).toString('hex')}`;
  const settings = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    MUSE_HOST: '127.0.0.1',
    MUSE_CONTENT_PORT: String(content),
    MUSE_CHAT_PORT: String(chat),
    MUSE_CONTENT_METRICS_PORT: String(contentMetrics),
    MUSE_CHAT_METRICS_PORT: String(chatMetrics),
    MUSE_WORKER_METRICS_PORT: String(workerMetrics),
    MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
    MUSE_SECRETS_KEY: randomBytes(32).toString('base64'),
    MUSE_DATA_DIR: path.join(os.tmpdir(), `muse-${taskQueue}`),
    ...env,
  };
  const config = loadConfig(settings);
  const own = envOf(database);
  const processes = (['content-api', 'chat-api', 'worker'] as const).map((command) =>
    startMuseServer([command], { ...settings, ...own[command] }),
  );
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const replicas = await Promise.all(
    Array.from({ length: moreChatApis }, async () => {
      const [port, metrics] = [await freePort(), await freePort()];
      const replica = startMuseServer(['chat-api'], {
        ...settings,
        ...own['chat-api'],
        MUSE_CHAT_PORT: String(port),
        MUSE_CHAT_METRICS_PORT: String(metrics),
      });
      processes.push(replica);
      return { replica, url: url(port) };
    }),
  );
  const stop = async () => {
    await Promise.all(processes.map((server) => server.stop()));
    await database.drop();
  };
  try {
    // Three processes loading at once on a busy two-core machine: more time than one alone.
    await waitUntilServing(url(content), processes[0]!, STARTUP_TIMEOUT_MS);
    await waitUntilServing(url(chat), processes[1]!, STARTUP_TIMEOUT_MS);
    await processes[2]!.waitForOutput(/worker running/, STARTUP_TIMEOUT_MS);
    for (const { replica, url: replicaUrl } of replicas)
      await waitUntilServing(replicaUrl, replica, STARTUP_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw error;
  }
  const stack: ProcessStack = {
    database,
    config,
    contentUrl: url(content),
    chatUrl: url(chat),
    chatUrls: [url(chat), ...replicas.map((replica) => replica.url)],
    metricsUrls: {
      'content-api': url(contentMetrics),
      'chat-api': url(chatMetrics),
      worker: url(workerMetrics),
    },
    processes,
    asTestStack: () =>
      ({ database, config, contentUrl: stack.contentUrl, chatUrl: stack.chatUrl, taskQueue }) as TestStack,
    stop,
  };
  return stack;
}
