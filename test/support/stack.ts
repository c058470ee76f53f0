import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import {
  announceThrough,
  closeApp,
  createMessageBus,
  createLogger,
  listen,
  loadConfig,
  metricsHandler,
  metricsRegistryOf,
  taskQueueOf,
  WORKLOADS,
  type Config,
  type DatabaseOptions,
  type Logger,
  type MessageBus,
  type RunningServer,
  type Workload,
} from '@muse/core';
import { attachConversationSockets, createContentApp } from '@muse/content-api';
import { createChatApp } from '@muse/chat-api';
import { createTemporalClient, createWorker, type MuseWorker, type WorkerOptions } from '@muse/temporal';
import type { Client } from '@temporalio/client';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestStack {
  config: Config;
  logger: Logger;
  database: TestDatabase;
  temporal: Client;
  /** The bus the stack's processes announce on: Postgres, or Redis Streams with MUSE_EVENT_BUS=redis. */
  bus: MessageBus;
  taskQueue: string;
  contentUrl: string;
  chatUrl: string;
  /** Each API's metrics listener (`GET /metrics`), apart from its API port as in production. */
  contentMetricsUrl: string;
  chatMetricsUrl: string;
  /** Starts a worker on this stack's task queues (every workload unless named); stopped by `stop()`. */
  startWorker(options?: { workloads?: Workload[]; slots?: WorkerOptions['slots'] }): Promise<MuseWorker>;
  stop(): Promise<void>;
}

/**
 * A spawned worker's sticky timeout (MUSE_WORKER_STICKY_TIMEOUT_MS): tests kill workers, whose
 * workflows then go on in the next one after this, not after Temporal's 10 s.
 */
export const TEST_STICKY_TIMEOUT_MS = '2000';

/**
 * What a `muse-server worker` process (startMuseServer) needs to work for this stack: its
 * database, Temporal and task queue, the keys its activities read with, and a short sticky
 * timeout. Spread it first and name what a test changes after it.
 */
export function workerProcessEnv(stack: TestStack): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: stack.database.url,
    TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    MUSE_DATA_DIR: stack.config.MUSE_DATA_DIR,
    MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
    MUSE_SECRETS_KEY: stack.config.MUSE_SECRETS_KEY!,
    MUSE_WORKER_STICKY_TIMEOUT_MS: TEST_STICKY_TIMEOUT_MS,
  };
}

/**
 * The platform as a test file sees it: its own database, its own Temporal task queue, and
 * both APIs listening on real ports. Pass `env` to override configuration, `adminDatabaseUrl`
 * to put the database on a Postgres server of the test's own (one it may crash), and
 * `databaseBounds` for an API process's statement and acquire timeouts on its pool.
 */
export async function startTestStack(
  env: Record<string, string> = {},
  options: {
    adminDatabaseUrl?: string;
    databaseBounds?: Pick<DatabaseOptions, 'statementTimeoutMs' | 'acquireTimeoutMs'>;
  } = {},
): Promise<TestStack> {
  const database = await createTestDatabase({
    ...(options.adminDatabaseUrl ? { adminUrl: options.adminDatabaseUrl } : {}),
    ...(options.databaseBounds ? { bounds: options.databaseBounds } : {}),
  });
  const taskQueue = `test-${randomBytes(6).toString('hex')}`;
  const temporalAddress = inject('temporalAddress');
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MUSE_HOST: '127.0.0.1',
    MUSE_CONTENT_PORT: '0',
    MUSE_CHAT_PORT: '0',
    MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
    MUSE_SECRETS_KEY: randomBytes(32).toString('base64'),
    // The fakes of upstreams, code providers and push services listen on loopback.
    MUSE_OUTBOUND_ALLOW: '127.0.0.1',
    MUSE_DATA_DIR: path.join(os.tmpdir(), `muse-${taskQueue}`),
    // Tests are busy clients: the per-user write limit is far away (security.test.ts proves it).
    MUSE_CHAT_USER_WRITES: '1000000',
    ...env,
  });
  const logger = createLogger(config, 'test');
  const temporal = createTemporalClient(temporalAddress, config.TEMPORAL_NAMESPACE);
  const bus = await createMessageBus(config, database.url, logger);
  const announcer = announceThrough(database.db, bus, logger);
  const deps = { config, logger, db: database.db, temporal, bus };
  const serverOptions = { host: config.MUSE_HOST, logger, shutdownTimeoutMs: 1000 };
  const contentApp = createContentApp(deps);
  const chatApp = createChatApp(deps);
  const content: RunningServer = await listen(contentApp, { ...serverOptions, port: 0 });
  const chat: RunningServer = await listen(chatApp, { ...serverOptions, port: 0 });
  const metrics = await Promise.all(
    [contentApp, chatApp].map((app) =>
      listen(metricsHandler(metricsRegistryOf(app)), { ...serverOptions, port: 0 }),
    ),
  );
  const sockets = attachConversationSockets(content.server, contentApp);

  const workers: { worker: MuseWorker; running: Promise<void> }[] = [];
  return {
    config,
    logger,
    database,
    temporal,
    bus,
    taskQueue,
    contentUrl: content.url,
    chatUrl: chat.url,
    contentMetricsUrl: metrics[0]!.url,
    chatMetricsUrl: metrics[1]!.url,
    async startWorker({ workloads = [...WORKLOADS], slots } = {}) {
      const worker = await createWorker({
        address: temporalAddress,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueues: workloads.map((workload) => taskQueueOf(config, workload)),
        deps,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        ...(slots ? { slots } : {}),
      });
      workers.push({ worker, running: worker.run() });
      return worker;
    },
    async stop() {
      for (const { worker, running } of workers) {
        worker.shutdown();
        await running.catch(() => {});
      }
      await sockets.close();
      await content.close();
      await closeApp(contentApp);
      await chat.close();
      await closeApp(chatApp);
      for (const server of metrics) await server.close();
      await announcer.flush();
      await bus.close();
      await temporal.connection.close().catch(() => {});
      await database.drop();
    },
  };
}
