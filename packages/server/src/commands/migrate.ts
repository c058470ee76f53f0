import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, createLogger, migrate, pendingMigrations, type Config } from '@muse/core';
import { contentMigrations } from '@muse/content-api';
import { chatMigrations } from '@muse/chat-api';
import { requireSetting } from '../runtime.ts';

export const allMigrations = [contentMigrations, chatMigrations];

export interface MigrateOptions {
  /** Apply nothing: wait until someone else (the migrations Job) has applied every migration. */
  wait?: boolean;
  /** How long `wait` waits, in seconds. */
  timeout?: string;
}

const WAIT_POLL_MS = 2000;

/** Applies pending migrations of both services; safe to run from several pods at once. */
export async function runMigrate(config: Config, options: MigrateOptions = {}): Promise<void> {
  const logger = createLogger(config, 'migrate');
  // The migrations' lock (pg_advisory_lock) belongs to a session: never through a transaction pooler.
  const db = createDatabase(config.DATABASE_DIRECT_URL ?? requireSetting(config, 'DATABASE_URL'), logger, {
    poolMax: 1,
  });
  try {
    if (options.wait) {
      await waitForSchema(db, logger, Number(options.timeout ?? 600) * 1000);
      return;
    }
    const applied = await migrate(db, allMigrations);
    logger.info({ applied }, applied.length ? 'migrations applied' : 'database is up to date');
  } finally {
    await db.close();
  }
}

/**
 * What each pod's init container runs: returns once the schema has reached this image's version,
 * so pods never serve an older schema than their code expects. A database that cannot be reached
 * yet counts as not ready; only the deadline ends the wait with an error.
 */
async function waitForSchema(
  db: ReturnType<typeof createDatabase>,
  logger: ReturnType<typeof createLogger>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const pending = await pendingMigrations(db, allMigrations).catch((error: Error) => [
      `database unreachable: ${error.message}`,
    ]);
    if (pending.length === 0) {
      logger.info('the database schema is up to date');
      return;
    }
    const summary = pending.join(', ');
    if (summary !== last) logger.info({ pending }, 'waiting for the migrations Job');
    last = summary;
    if (Date.now() > deadline) {
      throw new Error(
        `The database schema is not up to date after ${timeoutMs / 1000} s; pending: ${summary}`,
      );
    }
    await sleep(WAIT_POLL_MS);
  }
}
