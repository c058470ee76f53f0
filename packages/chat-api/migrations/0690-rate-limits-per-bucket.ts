import type { MigrationContext } from '@muse/core';

/**
 * `rate_limits` takes the shape of core's limiter, shared with the content service: a counter per
 * (bucket, key) with its own window length. The old counters are dropped (they only live for
 * their window anyway).
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE chat.rate_limits;
    CREATE TABLE chat.rate_limits (
      bucket text NOT NULL,
      key text NOT NULL,
      window_start timestamptz NOT NULL,
      window_seconds integer NOT NULL CHECK (window_seconds > 0),
      count integer NOT NULL DEFAULT 1,
      PRIMARY KEY (bucket, key)
    );
    CREATE INDEX rate_limits_expiry ON chat.rate_limits (window_start);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE chat.rate_limits;
    CREATE TABLE chat.rate_limits (key text PRIMARY KEY, window_start timestamptz NOT NULL, count integer NOT NULL);
  `);
}
