import type { MigrationContext } from '@muse/core';

/**
 * Scheduled messages, drafts and saved snippets, each owned by one user.
 * A scheduled message is delivered once: delivery locks its row and records the message it
 * became (`delivered_message_id`), so a retried or repeated delivery finds it done. `version`
 * orders edits, so the delivery workflow can keep only the newest time it is told.
 */
export async function up({ sequelize, schema }: MigrationContext): Promise<void> {
  const s = `"${schema}"`;
  await sequelize.query(`
    CREATE TABLE ${s}.scheduled_messages (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      sender_id integer NOT NULL REFERENCES ${s}.users(id),
      type text NOT NULL CHECK (type IN ('stream', 'private')),
      stream_id integer REFERENCES ${s}.streams(id),
      recipient_ids integer[],
      topic text NOT NULL DEFAULT '',
      content text NOT NULL,
      rendered_content text NOT NULL,
      read_by_sender boolean NOT NULL DEFAULT true,
      deliver_at timestamptz NOT NULL,
      failed boolean NOT NULL DEFAULT false,
      failure_message text,
      delivered_message_id bigint UNIQUE REFERENCES ${s}.messages(id) ON DELETE SET NULL,
      delivered_at timestamptz,
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((type = 'stream') = (stream_id IS NOT NULL))
    );
    CREATE INDEX scheduled_messages_pending ON ${s}.scheduled_messages (sender_id, deliver_at)
      WHERE delivered_at IS NULL;
    CREATE TABLE ${s}.drafts (
      id serial PRIMARY KEY,
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      type text NOT NULL CHECK (type IN ('', 'stream', 'private')),
      "to" integer[] NOT NULL DEFAULT '{}',
      topic text NOT NULL DEFAULT '',
      content text NOT NULL,
      last_edit_time timestamptz NOT NULL
    );
    CREATE INDEX drafts_user ON ${s}.drafts (user_id, last_edit_time DESC);
    CREATE TABLE ${s}.saved_snippets (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      title text NOT NULL,
      content text NOT NULL,
      date_created timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX saved_snippets_user ON ${s}.saved_snippets (user_id, id);
  `);
}
