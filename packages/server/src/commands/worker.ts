import {
  createMetricsRegistry,
  listen,
  metricsHandler,
  onShutdownSignal,
  startTracing,
  taskQueueOf,
  workloadsOf,
  type Config,
} from '@muse/core';
import { createWorker, temporalSecurity } from '@muse/temporal';
import { startStrandedGenerations } from '@muse/content-api';
import { createRuntime, requireSetting } from '../runtime.ts';

/** Runs the Temporal worker until SIGTERM; Temporal lets running activities finish first. */
export async function runWorker(config: Config): Promise<void> {
  const tracing = await startTracing('worker');
  // The generation steps and replies the worker runs announce through the configured bus.
  const runtime = await createRuntime(config, 'worker');
  const workloads = workloadsOf(config);
  const taskQueues = workloads.map((workload) => taskQueueOf(config, workload));
  const { run, shutdown } = await createWorker({
    address: requireSetting(config, 'TEMPORAL_ADDRESS'),
    security: temporalSecurity(config),
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueues,
    deps: runtime,
    workflowBundleDir: config.MUSE_WORKFLOW_BUNDLE_DIR,
    slots: {
      workflowTasks: config.MUSE_WORKER_WORKFLOW_SLOTS,
      activities: config.MUSE_WORKER_ACTIVITY_SLOTS,
    },
    stickyTimeoutMs: config.MUSE_WORKER_STICKY_TIMEOUT_MS,
    // Scheduled messages due within the wake-early window each wait in an activity slot.
    queueSlots: { [taskQueueOf(config, 'delivery')]: { activities: config.MUSE_WORKER_DELIVERY_SLOTS } },
  });
  // Rescues tasks charged by an API process that died before starting their workflow.
  let reconciling: Promise<unknown> = Promise.resolve();
  const reconcile = () => {
    reconciling = startStrandedGenerations(runtime).catch((error: unknown) =>
      runtime.logger.warn({ err: error }, 'could not check for stranded generation tasks'),
    );
  };
  // Once at start too, so the backlog gauge has a value from the first scrape.
  if (workloads.includes('generation')) reconcile();
  const reconciler = workloads.includes('generation') ? setInterval(reconcile, 60_000) : undefined;
  const metrics = await listen(metricsHandler(createMetricsRegistry('worker')), {
    host: config.MUSE_HOST,
    port: config.MUSE_WORKER_METRICS_PORT,
    logger: runtime.logger,
    shutdownTimeoutMs: config.MUSE_SHUTDOWN_TIMEOUT_MS,
  });
  onShutdownSignal(runtime.logger, async () => {
    clearInterval(reconciler);
    shutdown();
    await metrics.close();
  });
  runtime.logger.info({ workloads, taskQueues }, 'worker running');
  await run();
  // A round still running at shutdown ends before its database pool closes under it.
  await reconciling;
  await runtime.close();
  await tracing?.shutdown();
}
