import type { MigrationContext } from '@muse/core';

/**
 * What an everyday client session needs (issue 26): personal settings, message edit history,
 * reactions, per-topic visibility (mute/follow), presence, and an index for unread counts.
 */
export async function up({ sequelize, schema }: MigrationContext): Promise<void> {
  const s = `"${schema}"`;
  await sequelize.query(`
    ALTER TABLE ${s}.users ADD COLUMN settings jsonb NOT NULL DEFAULT '{}';
    ALTER TABLE ${s}.messages ADD COLUMN edit_history jsonb NOT NULL DEFAULT '[]';
    ALTER TABLE ${s}.messages ADD COLUMN last_edit_time timestamptz;
    ALTER TABLE ${s}.messages ADD COLUMN last_moved_time timestamptz;
    CREATE INDEX messages_stream_topic ON ${s}.messages (stream_id, lower(topic), id) WHERE stream_id IS NOT NULL;
    CREATE INDEX user_messages_unread ON ${s}.user_messages (user_id, message_id)
      WHERE NOT ('read' = ANY (flags));
    CREATE INDEX user_messages_message ON ${s}.user_messages (message_id);
    CREATE TABLE ${s}.reactions (
      message_id bigint NOT NULL REFERENCES ${s}.messages(id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      emoji_name text NOT NULL,
      emoji_code text NOT NULL,
      reaction_type text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (message_id, user_id, reaction_type, emoji_code)
    );
    CREATE TABLE ${s}.user_topics (
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      stream_id integer NOT NULL REFERENCES ${s}.streams(id) ON DELETE CASCADE,
      topic text NOT NULL,
      visibility_policy integer NOT NULL,
      last_updated timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX user_topics_key ON ${s}.user_topics (user_id, stream_id, lower(topic));
    CREATE SEQUENCE ${s}.presence_updates;
    CREATE TABLE ${s}.presence (
      user_id integer PRIMARY KEY REFERENCES ${s}.users(id),
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      last_active_time timestamptz,
      last_connected_time timestamptz,
      last_update_id bigint NOT NULL
    );
    CREATE INDEX presence_realm_update ON ${s}.presence (realm_id, last_update_id);
  `);
}

export async function down({ sequelize, schema }: MigrationContext): Promise<void> {
  const s = `"${schema}"`;
  await sequelize.query(`
    DROP TABLE ${s}.presence;
    DROP SEQUENCE ${s}.presence_updates;
    DROP TABLE ${s}.user_topics;
    DROP TABLE ${s}.reactions;
    DROP INDEX ${s}.user_messages_message;
    DROP INDEX ${s}.user_messages_unread;
    DROP INDEX ${s}.messages_stream_topic;
    ALTER TABLE ${s}.messages DROP COLUMN last_moved_time;
    ALTER TABLE ${s}.messages DROP COLUMN last_edit_time;
    ALTER TABLE ${s}.messages DROP COLUMN edit_history;
    ALTER TABLE ${s}.users DROP COLUMN settings;
  `);
}
