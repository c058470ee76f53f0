// Workflow interceptor module (bundled into the sandbox beside the workflows): tells the worker
// through a sink how each workflow execution ended, for muse_workflows_total. Sinks run outside
// the sandbox and not during replay, so a replayed history is not counted twice.
import {
  ContinueAsNew,
  isCancellation,
  proxySinks,
  type Sinks,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

export interface MetricsSinks extends Sinks {
  metrics: { workflowEnded(outcome: 'completed' | 'failed' | 'cancelled'): void };
}

const { metrics } = proxySinks<MetricsSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        try {
          const result = await next(input);
          metrics.workflowEnded('completed');
          return result;
        } catch (error) {
          // Continuing as new is how a long workflow goes on, not an ending.
          if (!(error instanceof ContinueAsNew))
            metrics.workflowEnded(isCancellation(error) ? 'cancelled' : 'failed');
          throw error;
        }
      },
    },
  ],
});
