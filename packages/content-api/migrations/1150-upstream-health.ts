import type { MigrationContext } from '@muse/core';

/**
 * `generator_health`: one row per generator whose upstream asked to be left alone (429 with its
 * Retry-After), shared by every API process; submits to it answer 529 until `rate_limited_until`.
 * `generations.failure_kind`: why a failed task failed (timeout, rate_limited, …), so a submit
 * that waits for its task (Prefer: wait) can answer 504 or 529.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE content.generator_health (
      generator_id uuid PRIMARY KEY REFERENCES content.generators(id) ON DELETE CASCADE,
      rate_limited_until timestamptz NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE content.generations ADD COLUMN failure_kind text
      CHECK (failure_kind IN ('timeout', 'rate_limited', 'unavailable', 'failed', 'cancelled'));
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE content.generations DROP COLUMN failure_kind;
    DROP TABLE content.generator_health;
  `);
}
