import { platformMetrics, type Config, type Logger, type Sequelize, one, rows, transact } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { startGenerationWorkflow } from './starter.ts';

type ReconcilerDeps = { db: Sequelize; temporal: TemporalClient; config: Config; logger: Logger };

/**
 * Starts the workflow of every task still pending after `olderThanSeconds`. A task is charged
 * before its workflow starts; if the API process died in between, this is what runs (and so
 * refunds, if it fails) the task. Starting a workflow that already runs is a no-op, so a task
 * that is merely waiting for a busy worker is left alone.
 */
export async function startStrandedGenerations(deps: ReconcilerDeps, olderThanSeconds = 60): Promise<number> {
  const stranded = await rows<{ id: string }>(
    deps.db,
    `SELECT id FROM content.generations
      WHERE status = 'pending' AND created_at < now() - make_interval(secs => :olderThanSeconds)
      ORDER BY created_at LIMIT 500`,
    { olderThanSeconds },
  );
  platformMetrics.reconcilerBacklog.set({ reconciler: 'stranded_generations' }, stranded.length);
  let started = 0;
  for (const { id } of stranded) if (await startWhilePending(deps, id)) started++;
  if (started) deps.logger.warn({ started }, 'started the workflows of stranded generation tasks');
  return started;
}

/**
 * Starts a task's workflow only if the task is still pending, holding its row until the start
 * answered. A cancel fails the task under that row's lock, so it either came first (the task is
 * no longer pending: nothing is started) or waits for the start and then cancels the workflow
 * it started; a task whose cancel is in flight is skipped (the next round finds it ended).
 */
async function startWhilePending(deps: ReconcilerDeps, taskId: string): Promise<boolean> {
  // The start may run again if transact retries: harmless, the workflow id is the task's.
  return transact(deps.db, async (transaction) => {
    const pending = await one(
      deps.db,
      `SELECT 1 FROM content.generations WHERE id = :taskId AND status = 'pending' FOR SHARE SKIP LOCKED`,
      { taskId },
      transaction,
    );
    return pending ? startGenerationWorkflow(deps, taskId) : false;
  });
}
