/**
 * What the content service and the generation workflow agree on. Imported by the workflow
 * bundle (Temporal's sandbox), so this module imports nothing.
 */
export const GENERATION_WORKFLOW = 'generationWorkflow';

/** One workflow per task: starting it twice reaches the same one. */
export const workflowIdOf = (taskId: string) => `generation-${taskId}`;

/** What the workflow needs to know to drive a task; `finished` when an earlier run already ended it. */
export type TaskPlan =
  | { finished: true; status: 'completed' | 'failed' }
  | {
      finished: false;
      requestTimeoutSeconds: number;
      maxAttempts: number;
      pollIntervalSeconds: number;
      timeoutSeconds: number;
      files: number;
      /** The adapter makes the results in process, quickly (see GenerationAdapter.runsInProcess). */
      inProcess: boolean;
    };

/** A result as it travels through workflow history: bytes are already stored, only URLs remain to fetch. */
export type StoredOutput =
  { stored: true; contentType: string; size: number } | { url: string; contentType?: string };

export type StepResult =
  { state: 'running'; upstreamId: string } | { state: 'succeeded'; outputs: StoredOutput[] };

export interface GenerationOutcome {
  status: 'completed' | 'failed';
  error_message?: string;
}

/**
 * The failure types a step's upstream errors reach the workflow as (by UpstreamError kind); the
 * workflow names them in the task's error_message.
 */
export const UPSTREAM_FAILURE_TYPES = {
  transient: 'UpstreamUnavailable',
  permanent: 'UpstreamFailed',
  timeout: 'UpstreamTimeout',
  rate_limited: 'UpstreamRateLimited',
} as const;

/**
 * Why a task failed, kept with it (`generations.failure_kind`): a submit that waits for its task
 * answers 504 for `timeout` and 529 for `rate_limited` (the upstream's), the finished records otherwise.
 */
export type FailureKind = 'timeout' | 'rate_limited' | 'unavailable' | 'failed' | 'cancelled';
