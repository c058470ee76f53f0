import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  NativeConnection,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type InjectedSinks,
  type LogLevel,
  type LogMetadata,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import {
  OpenTelemetryActivityInboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import { activeTracing, platformMetrics, type Logger } from '@muse/core';
import { createActivities, type ActivityDeps } from './activities/index.ts';
import type { MetricsSinks } from './interceptors/workflow-metrics.ts';

const require = createRequire(import.meta.url);
const sourceFile = (relative: string) =>
  fileURLToPath(new URL(`${relative}${path.extname(import.meta.url)}`, import.meta.url));

export const workflowsPath = sourceFile('./workflows/index');

/** The sandbox's interceptors: outcome metrics always, Temporal's OpenTelemetry ones when tracing is on. */
function workflowInterceptorModules(tracing: boolean): string[] {
  return [
    sourceFile('./interceptors/workflow-metrics'),
    ...(tracing ? [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] : []),
  ];
}

/** Bundles the workflow code once (a few seconds); tests share one bundle across workers. */
export function bundleWorkflows(): Promise<WorkflowBundleOption> {
  return bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: workflowInterceptorModules(Boolean(activeTracing())),
    logger: quietBundlerLogger,
  });
}

/** Where the workflow interceptors' sinks land, outside the sandbox. */
function workflowSinks() {
  const metrics: InjectedSinks<MetricsSinks> = {
    metrics: {
      workflowEnded: {
        fn: (info, outcome) => platformMetrics.workflows.inc({ workflow: info.workflowType, outcome }),
        callDuringReplay: false,
      },
    },
  };
  const tracing = activeTracing();
  return tracing
    ? { ...metrics, exporter: makeWorkflowExporter(tracing.processor, tracing.resource) }
    : metrics;
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
  const tracing = Boolean(activeTracing());
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    interceptors: {
      // Activities continue the workflow's trace, so the upstream call is in the request's trace.
      activity: tracing ? [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })] : [],
      ...(workflowBundle ? {} : { workflowModules: workflowInterceptorModules(tracing) }),
    },
    sinks: workflowSinks(),
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
