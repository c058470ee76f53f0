import { AppError } from '@muse/core';
import { ReconcileProblem, describePlatformError } from './types.ts';

/**
 * Runs a platform call; what the platform refuses (invalid spec, name taken) becomes a
 * ReconcileProblem the user can read in the Ready condition. Anything else (database down)
 * stays an error and is retried with backoff.
 */
export async function platformCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError && error.status === 409)
      throw new ReconcileProblem('Conflict', describePlatformError(error));
    if (error instanceof AppError && error.status >= 400 && error.status < 500)
      throw new ReconcileProblem('InvalidSpec', describePlatformError(error));
    throw error;
  }
}
