import type { MigrationContext } from '@muse/core';

/**
 * A message to a large channel writes one flags row per recipient in one statement. Their two
 * foreign keys ran a query of their own for each row, and the key to users locked each
 * recipient's row (a WAL record per recipient, and a MultiXact when several senders hold it): of
 * a 10,000-recipient insert, about half its time and 16 % of its WAL. The rows are written only
 * from the channel's subscriptions or the checked direct recipients, in the message's own
 * transaction, and users are never deleted, so the keys go; a deleted message still takes its
 * flags rows with it, by one statement per deletion instead of the key's cascade.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE chat.user_messages
      DROP CONSTRAINT user_messages_user_id_fkey,
      DROP CONSTRAINT user_messages_message_id_fkey;
    CREATE FUNCTION chat.delete_flags_of_messages() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM chat.user_messages um USING deleted d WHERE um.message_id = d.id;
      RETURN NULL;
    END $$;
    CREATE TRIGGER messages_delete_flags AFTER DELETE ON chat.messages
      REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION chat.delete_flags_of_messages();
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TRIGGER messages_delete_flags ON chat.messages;
    DROP FUNCTION chat.delete_flags_of_messages();
    ALTER TABLE chat.user_messages
      ADD CONSTRAINT user_messages_user_id_fkey FOREIGN KEY (user_id) REFERENCES chat.users(id),
      ADD CONSTRAINT user_messages_message_id_fkey FOREIGN KEY (message_id)
        REFERENCES chat.messages(id) ON DELETE CASCADE;
  `);
}
