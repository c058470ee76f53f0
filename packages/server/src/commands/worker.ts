import {
  createMetricsRegistry,
  listen,
  metricsHandler,
  onShutdownSignal,
  startTracing,
  type Config,
} from '@muse/core';
import { createWorker } from '@muse/temporal';
import { startStrandedGenerations } from '@muse/content-api';
import { createRuntime, requireSetting } from '../runtime.ts';

/** Runs the Temporal worker until SIGTERM; Temporal lets running activities finish first. */
export async function runWorker(config: Config): Promise<void> {
  const tracing = await startTracing('worker');
  const runtime = createRuntime(config, 'worker');
  const { worker, run } = await createWorker({
    address: requireSetting(config, 'TEMPORAL_ADDRESS'),
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: runtime,
  });
  // Rescues tasks charged by an API process that died before starting their workflow.
  const reconcile = () =>
    startStrandedGenerations(runtime).catch((error: unknown) =>
      runtime.logger.warn({ err: error }, 'could not check for stranded generation tasks'),
    );
  // Once at start too, so the backlog gauge has a value from the first scrape.
  void reconcile();
  const reconciler = setInterval(reconcile, 60_000);
  const metrics = await listen(metricsHandler(createMetricsRegistry('worker')), {
    host: config.MUSE_HOST,
    port: config.MUSE_WORKER_METRICS_PORT,
    logger: runtime.logger,
    shutdownTimeoutMs: config.MUSE_SHUTDOWN_TIMEOUT_MS,
  });
  onShutdownSignal(runtime.logger, async () => {
    clearInterval(reconciler);
    worker.shutdown();
    await metrics.close();
  });
  runtime.logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
  await run();
  await runtime.close();
  await tracing?.shutdown();
}
