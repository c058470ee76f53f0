import { access, mkdir, writeFile } from 'node:fs/promises';
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
  type BundleOptions,
} from '@temporalio/worker';
import {
  OpenTelemetryActivityInboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import { activeTracing, platformMetrics, type Logger } from '@muse/core';
import { createActivities, type ActivityDeps } from './activities/index.ts';
import type { MetricsSinks } from './interceptors/workflow-metrics.ts';
import type { TemporalSecurity } from './client.ts';

const require = createRequire(import.meta.url);
const sourceFile = (relative: string) =>
  fileURLToPath(new URL(`${relative}${path.extname(import.meta.url)}`, import.meta.url));

export const workflowsPath = sourceFile('./workflows/index');

/**
 * Running compiled (the image, `--conditions=compiled`): the bundle is made of the compiled
 * workflows, and the other workspaces' contracts they import must resolve to their compiled
 * output too — the sources are not in the image. webpack needs the condition named, as Node does.
 */
const compiledConditions: BundleOptions['webpackConfigHook'] = (config) => ({
  ...config,
  resolve: { ...config.resolve, conditionNames: ['compiled', '...'] },
});
const runningCompiled = path.extname(import.meta.url) === '.js';

/** The sandbox's interceptors: outcome metrics always, Temporal's OpenTelemetry ones when tracing is on. */
function workflowInterceptorModules(tracing: boolean): string[] {
  return [
    sourceFile('./interceptors/workflow-metrics'),
    ...(tracing ? [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] : []),
  ];
}

/**
 * Bundles the workflow code (a few seconds of webpack) for the sandbox with or without the tracing
 * interceptors; by default as this process traces.
 */
export function bundleWorkflows(tracing = Boolean(activeTracing())): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: workflowInterceptorModules(tracing),
    logger: quietBundlerLogger,
    ...(runningCompiled ? { webpackConfigHook: compiledConditions } : {}),
  });
}

/** The file of each variant in a directory `writeWorkflowBundles` filled. */
export function workflowBundleFile(dir: string, tracing: boolean): string {
  return path.resolve(dir, tracing ? 'workflows-tracing.js' : 'workflows.js');
}

/**
 * Writes both variants of the bundle into `dir` (`muse-server bundle-workflows`, the image's
 * build, the tests' global setup), so that workers load one instead of bundling at start.
 * One after the other: two webpack runs at once would only share the same cores.
 */
export async function writeWorkflowBundles(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const tracing of [false, true]) {
    const file = workflowBundleFile(dir, tracing);
    await writeFile(file, (await bundleWorkflows(tracing)).code);
    files.push(file);
  }
  return files;
}

/**
 * The prebuilt bundle of this process's variant. Missing, the start fails: whoever set
 * MUSE_WORKFLOW_BUNDLE_DIR wants that bundle, not a slower start that hides a broken image.
 */
export async function prebuiltWorkflowBundle(dir: string): Promise<{ codePath: string }> {
  const codePath = workflowBundleFile(dir, Boolean(activeTracing()));
  try {
    await access(codePath);
  } catch {
    throw new Error(
      `MUSE_WORKFLOW_BUNDLE_DIR: no workflow bundle at ${codePath}; run \`muse-server bundle-workflows ${dir}\` to write it`,
    );
  }
  return { codePath };
}

/** The prebuilt bundle when there is a directory of them, else one bundled now; logged either way. */
async function loadWorkflowBundle(dir: string | undefined, logger: Logger): Promise<WorkflowBundleOption> {
  if (dir) {
    const bundle = await prebuiltWorkflowBundle(dir);
    logger.info({ workflowBundle: bundle.codePath }, 'workflow bundle loaded');
    return bundle;
  }
  const started = Date.now();
  const bundle = await bundleWorkflows();
  logger.info({ bundleMs: Date.now() - started }, 'workflow code bundled at start');
  return bundle;
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
  /** TLS, client certificate and API key of the connection (`temporalSecurity(config)`); none by default. */
  security?: TemporalSecurity;
  namespace: string;
  /** One Temporal worker polls each queue, with slots of its own (see @muse/core's workloads). */
  taskQueues: string[];
  deps: ActivityDeps;
  /** The bundled workflow code; unset, the worker loads it from `workflowBundleDir`, else bundles it. */
  workflowBundle?: WorkflowBundleOption;
  /** A directory `writeWorkflowBundles` filled (MUSE_WORKFLOW_BUNDLE_DIR). */
  workflowBundleDir?: string;
  /** Workflow and activity tasks each queue's worker runs at once (unset: Temporal's defaults). */
  slots?: Slots;
  /** How long a workflow's next task waits for this worker before any may take it (unset: Temporal's 10 s). */
  stickyTimeoutMs?: number;
  /** A queue's own slots, over `slots` (the delivery queue's waiting deliveries each hold an activity slot). */
  queueSlots?: Record<string, Slots>;
}

export interface Slots {
  workflowTasks?: number;
  activities?: number;
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
  workers: Worker[];
  /** Polls until `shutdown()`, then closes the connection the workers share. */
  run(): Promise<void>;
  /** Stops polling; running activities may finish first. Safe to call more than once. */
  shutdown(): void;
}

/**
 * A worker per task queue, all on one connection and one workflow bundle, each registering every
 * workflow and activity: a queue's own worker slots are what keeps one workload from waiting
 * behind another, and any worker can finish a workflow started on an older queue layout.
 */
export async function createWorker({
  address,
  security = {},
  namespace,
  taskQueues,
  deps,
  workflowBundle,
  workflowBundleDir,
  slots = {},
  stickyTimeoutMs,
  queueSlots = {},
}: WorkerOptions): Promise<MuseWorker> {
  installRuntime(deps.logger.child({ component: 'temporal-worker' }));
  const bundle = workflowBundle ?? (await loadWorkflowBundle(workflowBundleDir, deps.logger));
  const connection = await NativeConnection.connect({ address, ...security });
  const activities = createActivities(deps);
  const tracing = Boolean(activeTracing());
  const workers = await Promise.all(
    [...new Set(taskQueues)].map((taskQueue) => {
      const own = { ...slots, ...queueSlots[taskQueue] };
      return Worker.create({
        connection,
        namespace,
        taskQueue,
        activities,
        workflowBundle: bundle,
        // Activities continue the workflow's trace, so the upstream call is in the request's trace.
        interceptors: {
          activity: tracing ? [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })] : [],
        },
        sinks: workflowSinks(),
        ...(own.workflowTasks ? { maxConcurrentWorkflowTaskExecutions: own.workflowTasks } : {}),
        ...(own.activities ? { maxConcurrentActivityTaskExecutions: own.activities } : {}),
        ...(stickyTimeoutMs ? { stickyQueueScheduleToStartTimeout: stickyTimeoutMs } : {}),
      });
    }),
  );
  const shutdown = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  const run = async () => {
    // A worker that fails stops the others: the process then exits and is restarted whole.
    const outcomes = await Promise.allSettled(workers.map((worker) => worker.run().catch(failed)));
    await connection.close();
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  };
  const failed = (error: unknown): never => {
    shutdown();
    throw error;
  };
  return { workers, run, shutdown };
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
