import { QueryTypes } from 'sequelize';
import type { Sequelize } from '@muse/core';
import { refundCharge } from '../ledger/ledger.ts';
import { publishFileStatus } from './events.ts';

/**
 * The compensation of a task's charge: marks the task and its unfinished files failed with the
 * reason, refunds the charge and publishes the status, in one transaction, so nobody ever reads a
 * failed task that is not refunded. Once only: the guarded UPDATE locks the task and skips one
 * that already ended, and the ledger refuses a second refund of the same charge anyway.
 * Answers whether this call ended the task.
 */
export async function failGeneration(
  db: Sequelize,
  taskId: string,
  message: string,
  options: { refundDescription: string; releaseIdempotencyKey?: boolean },
): Promise<boolean> {
  return db.transaction(async (transaction) => {
    const [task] = await db.query<{ owner_id: string; charge_id: string | null; file_ids: string[] }>(
      `UPDATE content.generations SET status = 'failed', error_message = :message, updated_at = now()
         ${options.releaseIdempotencyKey ? ', idempotency_key = NULL' : ''}
        WHERE id = :taskId AND status IN ('pending', 'processing') RETURNING owner_id, charge_id, file_ids`,
      { replacements: { taskId, message }, type: QueryTypes.SELECT, transaction },
    );
    if (!task) return false;
    await db.query(
      `UPDATE content.files SET status = 'failed', error_message = :message, updated_at = now()
        WHERE generation_id = :taskId AND status <> 'completed'`,
      { replacements: { taskId, message }, transaction },
    );
    if (task.charge_id) await refundCharge(db, transaction, task.charge_id, options.refundDescription);
    await publishFileStatus(
      db,
      task.file_ids.map((fileId) => ({
        file_id: fileId,
        generation_id: taskId,
        owner_id: task.owner_id,
        status: 'failed' as const,
        error_message: message,
      })),
      transaction,
    );
    return true;
  });
}
