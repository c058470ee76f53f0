import type { MigrationContext } from '@muse/core';

/**
 * What the conversation channel needs from the schema:
 * - `seq`: each message's place in its conversation, given under the conversation's row lock,
 *   so the order clients see and resume from is the order of storage;
 * - `client_id`: a client's idempotency key, stored once per author and conversation;
 * - `reply_to_id`: a character's reply names the message it answers, once (a retried reply
 *   workflow cannot store two);
 * - a character's text generator, which makes it answer.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE content.conversations ADD COLUMN message_seq bigint NOT NULL DEFAULT 0;
    ALTER TABLE content.conversation_messages
      ADD COLUMN seq bigint,
      ADD COLUMN client_id text CHECK (length(client_id) BETWEEN 1 AND 100),
      ADD COLUMN reply_to_id uuid UNIQUE REFERENCES content.conversation_messages(id) ON DELETE SET NULL;
    UPDATE content.conversation_messages m SET seq = ordered.seq
      FROM (SELECT id, row_number() OVER (PARTITION BY conversation_id ORDER BY created_at, id) AS seq
              FROM content.conversation_messages) ordered
     WHERE ordered.id = m.id;
    UPDATE content.conversations c SET message_seq = COALESCE(
      (SELECT max(seq) FROM content.conversation_messages WHERE conversation_id = c.id), 0);
    ALTER TABLE content.conversation_messages ALTER COLUMN seq SET NOT NULL;
    CREATE UNIQUE INDEX conversation_messages_seq ON content.conversation_messages (conversation_id, seq);
    CREATE UNIQUE INDEX conversation_messages_client_id
      ON content.conversation_messages (conversation_id, author_id, client_id) WHERE client_id IS NOT NULL;

    ALTER TABLE content.characters ADD COLUMN generator_id uuid REFERENCES content.generators(id) ON DELETE SET NULL;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE content.characters DROP COLUMN generator_id;
    DROP INDEX content.conversation_messages_client_id;
    DROP INDEX content.conversation_messages_seq;
    ALTER TABLE content.conversation_messages DROP COLUMN reply_to_id, DROP COLUMN client_id, DROP COLUMN seq;
    ALTER TABLE content.conversations DROP COLUMN message_seq;
  `);
}
