import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities/index.ts';

export const workflowsPath = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));

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

export async function createWorker({ address, namespace, taskQueue, deps, workflowBundle }: WorkerOptions): Promise<Worker> {
  const connection = await NativeConnection.connect({ address });
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    ...(workflowBundle ? { workflowBundle } : { workflowsPath, bundlerOptions: {} }),
  });
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
