import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig, pendingMigrations } from '@muse/core';
import { contentMigrations } from '@muse/content-api';
import { chatMigrations } from '@muse/chat-api';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';
import { createRuntime } from '../src/runtime.ts';
import { runMigrate } from '../src/commands/migrate.ts';

/** The same database, under another application_name: which URL a connection came from shows in pg_stat_activity. */
const named = (url: string, name: string) => {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.toString();
};

describe('the database settings of a process (MUSE_DB_POOL_MAX, DATABASE_DIRECT_URL)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrated: false });
  });
  afterAll(() => database.drop());

  const configWith = (env: Record<string, string>) =>
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: named(database.url, 'muse-pooled'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      ...env,
    });

  it('migrates over the direct URL, whose session holds the migrations lock', async () => {
    // The pooled URL names a database that does not exist: only the direct one can serve.
    const pooled = new URL(database.url);
    pooled.pathname = '/no_such_database';
    await runMigrate(configWith({ DATABASE_URL: pooled.toString(), DATABASE_DIRECT_URL: database.url }));
    expect(await pendingMigrations(database.db, [contentMigrations, chatMigrations])).toEqual([]);
  });

  it('listens for events over the direct URL, queries over the pooled one, with the pool size set', async () => {
    const runtime = await createRuntime(
      configWith({ DATABASE_DIRECT_URL: named(database.url, 'muse-direct'), MUSE_DB_POOL_MAX: '3' }),
      'database-settings-test',
    );
    try {
      await runtime.bus.subscribe('database_settings_test', () => {});
      await runtime.db.query('SELECT 1');
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const { rows } = await admin.query<{ application_name: string; query: string }>(
        `SELECT application_name, query FROM pg_stat_activity
          WHERE datname = current_database() AND application_name LIKE 'muse-%'`,
      );
      await admin.end();
      expect(rows.find((row) => row.query.startsWith('LISTEN'))?.application_name).toBe('muse-direct');
      expect(rows.find((row) => row.query === 'SELECT 1')?.application_name).toBe('muse-pooled');
      expect(runtime.db.config.pool?.max).toBe(3);
    } finally {
      await runtime.close();
    }
  });
});
