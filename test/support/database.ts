import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, migrate, type DatabaseOptions, type Sequelize } from '@muse/core';
import { contentMigrations } from '@muse/content-api';
import { chatMigrations } from '@muse/chat-api';

export interface TestDatabase {
  url: string;
  db: Sequelize;
  drop(): Promise<void>;
}

/**
 * A fresh, fully migrated (unless told otherwise) database of its own for one test file.
 * `bounds`: an API process's statement and acquire timeouts on the handle (migrations run
 * without them, as `muse-server migrate` does). On the run's own server it is a copy of the
 * run's migrated template (see `createTemplateDatabase`): copying takes a fraction of a second
 * where migrating takes seconds; on a server of the test's own (`adminUrl`) it is migrated.
 */
export async function createTestDatabase(
  options: {
    migrated?: boolean;
    adminUrl?: string;
    bounds?: Pick<DatabaseOptions, 'statementTimeoutMs' | 'acquireTimeoutMs'>;
  } = {},
): Promise<TestDatabase> {
  const adminUrl = options.adminUrl ?? inject('adminDatabaseUrl');
  const migrated = options.migrated ?? true;
  const template = migrated && !options.adminUrl ? inject('templateDatabase') : undefined;
  const name = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  const url = withDatabase(adminUrl, name);
  if (migrated && !template) await migrateDatabase(url);
  // One connection, as a request gets one: a query that waits for a second one inside a
  // transaction would wait forever here, and the strict guard names it first.
  const db = createDatabase(url, undefined, { poolMax: 1, ...options.bounds });
  return {
    url,
    db,
    async drop() {
      await db.close();
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/**
 * The migrated database the test databases of a run are copied from (`CREATE DATABASE … TEMPLATE`),
 * made once by the global setup. Nothing stays connected to it: Postgres copies only a database
 * no session uses.
 */
export async function createTemplateDatabase(
  adminUrl: string,
): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `test_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${name}"`);
  await migrateDatabase(withDatabase(adminUrl, name));
  return { name, drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

async function migrateDatabase(url: string): Promise<void> {
  const db = createDatabase(url, undefined, { poolMax: 1 });
  try {
    await migrate(db, [contentMigrations, chatMigrations]);
  } finally {
    await db.close();
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The most connections a handle's pool opens (Sequelize keeps it in undeclared options). */
export function poolSize(db: Sequelize): number {
  return (db as unknown as { options: { pool: { max: number } } }).options.pool.max;
}
