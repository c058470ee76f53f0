import type { MigrationContext } from '@muse/core';

/** The counters' table, keyed as given: (bucket, key) now, (bucket, key, window_start) before. */
const rateLimits = (primaryKey: string) => `
  DROP TABLE content.rate_limits;
  CREATE TABLE content.rate_limits (
    bucket text NOT NULL,
    key text NOT NULL,
    window_start timestamptz NOT NULL,
    window_seconds integer NOT NULL CHECK (window_seconds > 0),
    count integer NOT NULL DEFAULT 1,
    PRIMARY KEY (${primaryKey})
  );
  CREATE INDEX rate_limits_expiry ON content.rate_limits (window_start);
`;

/**
 * `rate_limits` keeps one counter per (bucket, key), whose window opens at its first hit: the
 * shape of core's limiter, shared with the messaging API. The old per-window rows are dropped
 * (counters only live for their window anyway).
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(rateLimits('bucket, key'));
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(rateLimits('bucket, key, window_start'));
}
