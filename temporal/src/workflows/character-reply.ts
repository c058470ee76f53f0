import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { ReplyActivities } from '../activities/reply.ts';

/** Database steps: short, idempotent, retried until the database answers. */
const bookkeeping = proxyActivities<ReplyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

export interface ReplyOutcome {
  status: 'answered' | 'not_answering' | 'insufficient_balance' | 'failed';
  error_message?: string;
}

/**
 * A character answers a user message: charge the author → stream the upstream's reply (its
 * chunks reach the conversation's sockets as they come) → store the reply. Each completed step
 * that costs something pushes its compensation; on failure they run in reverse, in a scope
 * that cancelling the workflow cannot interrupt, so a charge is never left without its refund.
 */
export async function characterReplyWorkflow(messageId: string): Promise<ReplyOutcome> {
  const plan = await bookkeeping.planReply(messageId);
  if (plan.state !== 'due') return { status: plan.state };

  const upstream = proxyActivities<ReplyActivities>({
    startToCloseTimeout: `${plan.requestTimeoutSeconds + 10} seconds`,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: plan.maxAttempts,
    },
  });

  const compensations: ((reason: string) => Promise<void>)[] = [];
  try {
    const charge = await bookkeeping.chargeReply(messageId);
    if (charge === 'insufficient_balance') return { status: 'insufficient_balance' };
    // Refunds the charge if there was one, and tells the conversation the reply failed.
    compensations.unshift((reason) => bookkeeping.refundReply(messageId, reason));

    const text = await upstream.streamReply(messageId);
    await bookkeeping.storeReply(messageId, text);
    return { status: 'answered' };
  } catch (error) {
    const reason = failureReason(error);
    await CancellationScope.nonCancellable(async () => {
      for (const compensate of compensations) await compensate(reason);
    });
    return { status: 'failed', error_message: reason };
  }
}

/** The innermost failure's message: what the upstream said, not Temporal's wrapping. */
function failureReason(error: unknown): string {
  let failure = error as { message?: string; cause?: unknown } | undefined;
  while (failure?.cause) failure = failure.cause as typeof failure;
  return `The character could not answer: ${failure?.message ?? 'unknown error'}`;
}
