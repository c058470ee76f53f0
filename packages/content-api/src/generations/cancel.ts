import { ConflictError, NotFoundError, one } from '@muse/core';
import type { ContentContext } from '../context.ts';
import type { CurrentUser } from '../auth/authenticate.ts';
import { failGeneration } from './fail.ts';

/** The error_message of a cancelled task and its files. */
export const CANCELLED = 'cancelled' as const;

/**
 * Cancels a pending or processing task for its owner or an administrator: failed + refunded at
 * once (failGeneration's guard makes it once, however it races the workflow), then the workflow
 * is cancelled so it stops calling, and cancels, the upstream. Others' tasks are 404.
 */
export async function cancelGeneration(context: ContentContext, user: CurrentUser, taskId: string) {
  const { db } = context;
  const find = async () => {
    const task = await one<{
      owner_id: string;
      status: string;
      file_ids: string[];
      workflow_id: string;
    }>(db, 'SELECT owner_id, status, file_ids, workflow_id FROM content.generations WHERE id = :taskId', {
      taskId,
    });
    if (!task || (task.owner_id !== user.id && !user.isAdmin)) throw new NotFoundError('No such generation');
    return task;
  };
  const task = await find();
  const ended = await failGeneration(db, taskId, CANCELLED, {
    refundDescription: 'Refund: the generation was cancelled',
    kind: 'cancelled',
  });
  if (!ended) throw new ConflictError(`The generation already ended (${(await find()).status})`);
  await context.temporal.workflow
    .getHandle(task.workflow_id)
    .cancel()
    .catch((error: unknown) => context.logger.warn({ err: error, taskId }, 'could not cancel the workflow'));
  return { id: taskId, file_ids: task.file_ids, status: 'failed' as const, error_message: CANCELLED };
}
