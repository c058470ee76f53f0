import type { MigrationContext } from '@muse/core';

/**
 * Log positions come from one sequence, taken by a transaction's last statement, instead of a
 * counter row per organization locked until commit: producers of one organization no longer
 * commit one after the other (each commit waited for the previous one's WAL flush). A later
 * position can now commit first, so readers deliver only up to the settled position (every
 * position below it committed or void, lib/events/positions.ts); a void entry (`realm_id` 0) fills a
 * position whose transaction rolled back; `event_log_pruned` holds the position below which
 * entries were pruned (settled), where readers start. Positions are unique across
 * organizations. Queues of the old numbering are dropped: their clients get BAD_EVENT_QUEUE_ID
 * and register again, as after a restart of Zulip's real-time process.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DELETE FROM chat.event_queues;
    DELETE FROM chat.event_log;
    DROP TABLE chat.event_log_heads;
    ALTER TABLE chat.event_log DROP CONSTRAINT event_log_pkey, ADD PRIMARY KEY (position);
    CREATE INDEX event_log_realm ON chat.event_log (realm_id, position);
    CREATE SEQUENCE chat.event_log_positions;
    CREATE TABLE chat.event_log_pruned (position bigint NOT NULL);
    INSERT INTO chat.event_log_pruned VALUES (0);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DELETE FROM chat.event_queues;
    DELETE FROM chat.event_log;
    DROP TABLE chat.event_log_pruned;
    DROP SEQUENCE chat.event_log_positions;
    DROP INDEX chat.event_log_realm;
    ALTER TABLE chat.event_log DROP CONSTRAINT event_log_pkey, ADD PRIMARY KEY (realm_id, position);
    CREATE TABLE chat.event_log_heads (
      realm_id integer PRIMARY KEY,
      position bigint NOT NULL DEFAULT 0
    );
  `);
}
