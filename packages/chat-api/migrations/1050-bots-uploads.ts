import type { MigrationContext } from '@muse/core';

/**
 * Bots and files: the service of an outgoing-webhook bot (its URL, interface and token), each
 * bot's key–value storage, uploaded files (attachments) with the messages that link them, and
 * the outgoing-webhook triggers written in the transaction of the message that caused them
 * (the durable record the delivery workflow finishes exactly once).
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE chat.realms ADD COLUMN max_file_upload_size_mib integer NOT NULL DEFAULT 25;
    CREATE INDEX users_bot_owner ON chat.users (bot_owner_id) WHERE bot_owner_id IS NOT NULL;
    CREATE TABLE chat.bot_services (
      bot_id integer PRIMARY KEY REFERENCES chat.users(id),
      base_url text NOT NULL,
      interface integer NOT NULL DEFAULT 1,
      token text NOT NULL
    );
    CREATE TABLE chat.bot_storage (
      bot_id integer NOT NULL REFERENCES chat.users(id),
      key text NOT NULL,
      value text NOT NULL,
      PRIMARY KEY (bot_id, key)
    );
    CREATE TABLE chat.attachments (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES chat.realms(id),
      owner_id integer NOT NULL REFERENCES chat.users(id),
      path_id text NOT NULL UNIQUE,
      storage_key text NOT NULL,
      file_name text NOT NULL,
      content_type text NOT NULL,
      size bigint NOT NULL,
      create_time timestamptz NOT NULL DEFAULT now(),
      is_realm_public boolean NOT NULL DEFAULT false
    );
    CREATE INDEX attachments_owner ON chat.attachments (owner_id);
    CREATE TABLE chat.attachment_messages (
      attachment_id integer NOT NULL REFERENCES chat.attachments(id) ON DELETE CASCADE,
      message_id bigint NOT NULL REFERENCES chat.messages(id) ON DELETE CASCADE,
      PRIMARY KEY (attachment_id, message_id)
    );
    CREATE INDEX attachment_messages_message ON chat.attachment_messages (message_id);
    CREATE TABLE chat.outgoing_webhook_triggers (
      id bigserial PRIMARY KEY,
      bot_id integer NOT NULL REFERENCES chat.users(id),
      message_id bigint NOT NULL REFERENCES chat.messages(id) ON DELETE CASCADE,
      trigger text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      outcome text,
      UNIQUE (bot_id, message_id)
    );
  `);
}
