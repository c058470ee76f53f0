import { platformMetrics, type Sequelize, one, transact } from '@muse/core';
import { refundCharge } from '../ledger/ledger.ts';
import { announceFileStatus, fileStatusEvents, type FileStatusEvent } from './events.ts';
import type { FailureKind } from './contract.ts';

/**
 * The compensation of a task's charge: marks the task and its unfinished files failed with the
 * reason and refunds the charge in one transaction, so nobody ever reads a failed task that is
 * not refunded; the files' status events are announced after the commit. Once only: the guarded
 * UPDATE locks the task and skips one that already ended, and the ledger refuses a second refund
 * of the same charge anyway.
 * Answers whether this call ended the task.
 */
export async function failGeneration(
  db: Sequelize,
  taskId: string,
  message: string,
  options: { refundDescription: string; kind?: FailureKind; releaseIdempotencyKey?: boolean },
): Promise<boolean> {
  const ended = await transact(db, async (transaction) => {
    // One statement: the task, its unfinished files and every file's event (announced after commit).
    const task = await one<{ charge_id: string | null; kind: string; events: FileStatusEvent[] }>(
      db,
      `WITH task AS (
         UPDATE content.generations SET status = 'failed', error_message = :message, failure_kind = :failureKind, updated_at = now()
           ${options.releaseIdempotencyKey ? ', idempotency_key = NULL' : ''}
          WHERE id = :taskId AND status IN ('pending', 'processing') RETURNING id, owner_id, charge_id, file_ids, kind
       ), files AS (
         UPDATE content.files SET status = 'failed', error_message = :message, updated_at = now()
          WHERE generation_id IN (SELECT id FROM task) AND status <> 'completed'
       ), sent AS (${fileStatusEvents('task', 'failed', 'CAST(:message AS text)')})
       SELECT task.charge_id, task.kind, (SELECT json_agg(event) FROM sent) AS events FROM task`,
      { taskId, message, failureKind: options.kind ?? 'failed' },
      transaction,
    );
    if (!task) return undefined;
    const refund = task.charge_id
      ? await refundCharge(db, transaction, task.charge_id, options.refundDescription)
      : undefined;
    return {
      kind: task.kind,
      events: task.events,
      refunded: refund ? Math.abs(Number(refund.amount)) : undefined,
    };
  });
  if (!ended) return false;
  announceFileStatus(db, ended.events);
  platformMetrics.generationTasks.inc({ kind: ended.kind, status: 'failed' });
  if (ended.refunded !== undefined) {
    platformMetrics.refunds.inc();
    platformMetrics.refundedCredits.inc(ended.refunded);
  }
  return true;
}
