import { ApplicationFailure } from '@temporalio/activity';
import { NotFoundError } from '@muse/core';
import { UpstreamError } from '@muse/content-api/workflow-steps';
import { UPSTREAM_FAILURE_TYPES } from '@muse/content-api/generation-contract';

/**
 * A step's domain errors become Temporal failures: a missing task and a permanent upstream error are not
 * retried; a 429's Retry-After paces the retry. Anything else is retried as it is.
 */
export async function asActivity<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof NotFoundError) throw ApplicationFailure.nonRetryable(error.message, 'TaskMissing');
    if (!(error instanceof UpstreamError)) throw error;
    throw ApplicationFailure.create({
      message: error.message,
      type: UPSTREAM_FAILURE_TYPES[error.kind],
      nonRetryable: error.kind === 'permanent',
      ...(error.retryAfterSeconds ? { nextRetryDelay: `${error.retryAfterSeconds}s` } : {}),
    });
  }
}
