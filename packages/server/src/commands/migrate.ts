import { createDatabase, createLogger, migrate, type Config } from '@muse/core';
import { contentMigrations } from '@muse/content-api';
import { chatMigrations } from '@muse/chat-api';
import { requireSetting } from '../runtime.ts';

export const allMigrations = [contentMigrations, chatMigrations];

/** Applies pending migrations of both services; safe to run from several pods at once. */
export async function runMigrate(config: Config): Promise<void> {
  const logger = createLogger(config, 'migrate');
  const db = createDatabase(requireSetting(config, 'DATABASE_URL'), logger);
  try {
    const applied = await migrate(db, allMigrations);
    logger.info({ applied }, applied.length ? 'migrations applied' : 'database is up to date');
  } finally {
    await db.close();
  }
}
