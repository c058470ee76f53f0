import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  NativeConnection,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type LogLevel,
  type LogMetadata,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import type { Logger } from '@muse/core';
import { createActivities, type ActivityDeps } from './activities/index.ts';

export const workflowsPath = fileURLToPath(
  new URL(`./workflows/index${path.extname(import.meta.url)}`, import.meta.url),
);

/** Bundles the workflow code once (a few seconds); tests share one bundle across workers. */
export function bundleWorkflows(): Promise<WorkflowBundleOption> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
}

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  workflowBundle?: WorkflowBundleOption;
}

let runtimeInstalled = false;

/** Routes the Temporal SDK's own logs into the process's pino logger (once per process). */
function installRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  const log = (level: LogLevel, message: string, meta?: LogMetadata) =>
    logger[levels[level]](meta ?? {}, message);
  Runtime.install({
    logger: {
      log,
      trace: (message, meta) => log('TRACE', message, meta),
      debug: (message, meta) => log('DEBUG', message, meta),
      info: (message, meta) => log('INFO', message, meta),
      warn: (message, meta) => log('WARN', message, meta),
      error: (message, meta) => log('ERROR', message, meta),
    },
  });
}

export interface MuseWorker {
  worker: Worker;
  /** Polls until `worker.shutdown()`, then closes the connection the worker was given. */
  run(): Promise<void>;
}

export async function createWorker({
  address,
  namespace,
  taskQueue,
  deps,
  workflowBundle,
}: WorkerOptions): Promise<MuseWorker> {
  installRuntime(deps.logger.child({ component: 'temporal-worker' }));
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    ...(workflowBundle ? { workflowBundle } : { workflowsPath, bundlerOptions: {} }),
  });
  return { worker, run: () => worker.run().finally(() => connection.close()) };
}

const quietBundlerLogger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error(message: string, meta?: Record<string, unknown>) {
    console.error(message, meta);
  },
  log() {},
};
