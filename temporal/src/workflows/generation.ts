import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
} from '@temporalio/workflow';
import {
  UPSTREAM_FAILURE_TYPES,
  type FailureKind,
  type GenerationOutcome,
  type StepResult,
  type TaskPlan,
} from '@muse/content-api/generation-contract';
import type { GenerationActivities } from '../activities/generation.ts';

/** Database bookkeeping: short, and retried until the database answers (it is idempotent). */
const bookkeeping = proxyActivities<GenerationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * The same bookkeeping as local activities: run by the worker inside the workflow task, recorded
 * as a marker, with no activity task round trip through the Temporal server.
 */
const localBookkeeping = proxyLocalActivities<GenerationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * Workflows started since this change run their bookkeeping, and in-process generators, as local
 * activities; a workflow started before replays its history with remote ones.
 */
const LOCAL_STEPS = 'generation-local-steps';

/**
 * One generation task (the charge was made at submission): processing → upstream submit →
 * poll with durable timers → store the results → completed. Any failure marks the task failed
 * with a readable reason and runs the compensation, the refund of its charge; a cancelled
 * workflow also asks the upstream to stop (POST /generations/{id}/cancel, or `temporal workflow cancel`).
 */
export async function generationWorkflow(taskId: string): Promise<GenerationOutcome> {
  const local = patched(LOCAL_STEPS);
  let plan: TaskPlan;
  try {
    plan = await (local ? localBookkeeping : bookkeeping).beginGeneration(taskId);
  } catch (error) {
    // Cancelled before its first step (a cancel that came while the start was on its way): the
    // task still ends failed and refunded, so nothing starts it again.
    if (!isCancellation(error)) throw error;
    return compensate(taskId, undefined, { message: 'cancelled', kind: 'cancelled' });
  }
  if (plan.finished) return { status: plan.status };

  // Upstream calls: a request may take requestTimeoutSeconds; transient errors back off and retry.
  const upstream = proxyActivities<GenerationActivities>({
    startToCloseTimeout: `${(plan.requestTimeoutSeconds * (plan.files + 1) + 10) * 1000} ms`,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: plan.maxAttempts,
    },
  });
  let upstreamId: string | undefined;
  try {
    if (local && plan.inProcess) {
      // Milliseconds of work in this process: one local step, the workflow ends in the same task.
      await proxyLocalActivities<GenerationActivities>({
        startToCloseTimeout: `${(plan.requestTimeoutSeconds + 10) * 1000} ms`,
        retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: plan.maxAttempts },
      }).generateInProcess(taskId);
      return { status: 'completed' };
    }
    const deadline = Date.now() + plan.timeoutSeconds * 1000;
    let step: StepResult = await upstream.submitUpstream(taskId);
    while (step.state === 'running') {
      upstreamId = step.upstreamId;
      if (Date.now() >= deadline) {
        throw ApplicationFailure.create({
          message: `it did not finish within ${plan.timeoutSeconds} s`,
          type: UPSTREAM_FAILURE_TYPES.timeout,
        });
      }
      await sleep(plan.pollIntervalSeconds * 1000);
      step = await upstream.pollUpstream(taskId, step.upstreamId);
    }
    await upstream.completeGeneration(taskId, step.outputs);
    return { status: 'completed' };
  } catch (error) {
    const cancelled = isCancellation(error);
    return compensate(
      taskId,
      cancelled ? upstreamId : undefined,
      cancelled ? { message: 'cancelled', kind: 'cancelled' } : failureOf(error),
    );
  }
}

/**
 * The compensation of the charge made at submission: failed + refunded, atomically (once: it
 * finds a task that already ended and moves nothing). It runs outside the workflow's scope, so
 * cancelling the workflow cannot cancel the refund too; a cancelled task's upstream is asked to stop.
 */
async function compensate(
  taskId: string,
  cancelUpstreamId: string | undefined,
  failure: { message: string; kind: FailureKind },
): Promise<GenerationOutcome> {
  await CancellationScope.nonCancellable(async () => {
    if (cancelUpstreamId) await bookkeeping.cancelUpstream(taskId, cancelUpstreamId);
    await bookkeeping.failAndRefundGeneration(taskId, failure.message, failure.kind);
  });
  return { status: 'failed', error_message: failure.message };
}

/**
 * The task's error_message, which says "timed out" or "rate limited" when that is what happened,
 * and the failure kind kept with the task (a waiting submit answers 504 or 529 by it).
 */
function failureOf(error: unknown): { message: string; kind: FailureKind } {
  let failure = error as { type?: string; message?: string; cause?: unknown } | undefined;
  while (failure?.cause && !failure.type) failure = failure.cause as typeof failure;
  const detail = failure?.message ?? 'unknown error';
  const kind =
    (failure as { name?: string } | undefined)?.name === 'TimeoutFailure'
      ? UPSTREAM_FAILURE_TYPES.timeout
      : failure?.type;
  switch (kind) {
    case UPSTREAM_FAILURE_TYPES.timeout:
      return { message: `The upstream generation service timed out: ${detail}`, kind: 'timeout' };
    case UPSTREAM_FAILURE_TYPES.rate_limited:
      return {
        message: `The upstream generation service rate limited the task and retries ran out: ${detail}`,
        kind: 'rate_limited',
      };
    case UPSTREAM_FAILURE_TYPES.transient:
      return {
        message: `The upstream generation service is unavailable and retries ran out: ${detail}`,
        kind: 'unavailable',
      };
    default:
      return { message: `The generation failed: ${detail}`, kind: 'failed' };
  }
}
