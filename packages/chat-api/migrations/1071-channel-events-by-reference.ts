import type { MigrationContext } from '@muse/core';

/**
 * A log entry may name a channel message instead of its recipients: it is then for everyone who
 * received that message (whose subscription span of `stream_id` covers `message_id`), except
 * `excluded_ids`, who have an entry of their own (the sender, the mentioned). A message to a
 * 10,000-member channel no longer reads its subscribers nor writes their 10,000 ids into the log
 * (40 KB); readers resolve the queues' users against the spans by primary key.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE chat.event_log
      ADD COLUMN stream_id integer,
      ADD COLUMN message_id bigint,
      ADD COLUMN excluded_ids integer[];
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  // Entries by reference cannot be read without their columns: their queues miss those events.
  await sequelize.query(`
    DELETE FROM chat.event_log WHERE stream_id IS NOT NULL;
    ALTER TABLE chat.event_log DROP COLUMN stream_id, DROP COLUMN message_id, DROP COLUMN excluded_ids;
  `);
}
