import type { MigrationContext } from '@muse/core';

/**
 * Events are stored once, in the organization's event log, with the ids of the users they are
 * for; a queue is a cursor over that log (the last event its client acknowledged, as a log
 * position and as the queue's own event id), filtered at read time. Queues of the old layout
 * are dropped: their clients get BAD_EVENT_QUEUE_ID and register again, as after a restart of
 * Zulip's real-time process.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE chat.queue_events;
    DELETE FROM chat.event_queues;
    ALTER TABLE chat.event_queues
      ADD COLUMN realm_id integer NOT NULL REFERENCES chat.realms(id),
      ADD COLUMN acked_position bigint NOT NULL;
    CREATE INDEX event_queues_realm ON chat.event_queues (realm_id, acked_position);
    CREATE TABLE chat.event_log_heads (
      realm_id integer PRIMARY KEY,
      position bigint NOT NULL DEFAULT 0
    );
    CREATE TABLE chat.event_log (
      realm_id integer NOT NULL,
      position bigint NOT NULL,
      event_type text NOT NULL,
      user_ids integer[],
      queue_id text,
      event jsonb NOT NULL,
      PRIMARY KEY (realm_id, position)
    );
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE chat.event_log;
    DROP TABLE chat.event_log_heads;
    DELETE FROM chat.event_queues;
    ALTER TABLE chat.event_queues DROP COLUMN realm_id, DROP COLUMN acked_position;
    CREATE TABLE chat.queue_events (
      queue_id text NOT NULL REFERENCES chat.event_queues(id) ON DELETE CASCADE,
      event_id integer NOT NULL,
      event jsonb NOT NULL,
      PRIMARY KEY (queue_id, event_id)
    );
  `);
}
