import { QueryTypes } from 'sequelize';
import { platformMetrics, type Config, type Logger, type Sequelize } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { startGenerationWorkflow } from './starter.ts';

/**
 * Starts the workflow of every task still pending after `olderThanSeconds`. A task is charged
 * before its workflow starts; if the API process died in between, this is what runs (and so
 * refunds, if it fails) the task. Starting a workflow that already runs is a no-op, so a task
 * that is merely waiting for a busy worker is left alone.
 */
export async function startStrandedGenerations(
  deps: { db: Sequelize; temporal: TemporalClient; config: Config; logger: Logger },
  olderThanSeconds = 60,
): Promise<number> {
  const stranded = await deps.db.query<{ id: string }>(
    `SELECT id FROM content.generations
      WHERE status = 'pending' AND created_at < now() - make_interval(secs => :olderThanSeconds)
      ORDER BY created_at LIMIT 500`,
    { replacements: { olderThanSeconds }, type: QueryTypes.SELECT },
  );
  platformMetrics.reconcilerBacklog.set({ reconciler: 'stranded_generations' }, stranded.length);
  let started = 0;
  for (const { id } of stranded) if (await startGenerationWorkflow(deps, id)) started++;
  if (started) deps.logger.warn({ started }, 'started the workflows of stranded generation tasks');
  return started;
}
