import type { MigrationContext } from '@muse/core';

/**
 * Full-text search (narrow operator `search`): `chat.message_search` holds each message's topic
 * and rendered text (tags stripped) as a `tsvector`, written by a trigger whenever the topic or
 * the rendered content changes (an edited message is found by its new words only), under a GIN
 * index. A table of its own rather than a column, so the many `SELECT m.*` readers of messages
 * do not carry the vector. The text-search configuration (stemming, stop words) is one row,
 * `chat.search_settings`; `chat.set_search_config('french')` changes it and re-indexes every
 * message, since a vector and a query must be built with the same configuration.
 *
 * A queue registered with a narrow stores it (`event_queues.narrow`): its readers drop the
 * message events that do not match (lib/narrow.ts).
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE chat.search_settings (config regconfig NOT NULL);
    INSERT INTO chat.search_settings VALUES ('pg_catalog.english');

    CREATE FUNCTION chat.search_config() RETURNS regconfig LANGUAGE sql STABLE AS $$
      SELECT config FROM chat.search_settings LIMIT 1
    $$;

    -- Rendered HTML to words: tags become spaces, the entities the renderer writes become characters.
    CREATE FUNCTION chat.message_tsv(config regconfig, topic text, rendered text) RETURNS tsvector
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT setweight(to_tsvector(config, topic), 'A') || to_tsvector(config,
        replace(replace(replace(replace(replace(regexp_replace(rendered, '<[^>]*>', ' ', 'g'),
          '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&'))
    $$;

    CREATE TABLE chat.message_search (
      message_id bigint PRIMARY KEY REFERENCES chat.messages(id) ON DELETE CASCADE,
      tsv tsvector NOT NULL
    );

    CREATE FUNCTION chat.index_message_text() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO chat.message_search (message_id, tsv)
      VALUES (NEW.id, chat.message_tsv(chat.search_config(), NEW.topic, NEW.rendered_content))
      ON CONFLICT (message_id) DO UPDATE SET tsv = EXCLUDED.tsv;
      RETURN NULL;
    END $$;
    CREATE TRIGGER messages_search_text AFTER INSERT OR UPDATE OF topic, rendered_content
      ON chat.messages FOR EACH ROW EXECUTE FUNCTION chat.index_message_text();

    INSERT INTO chat.message_search (message_id, tsv)
    SELECT id, chat.message_tsv(chat.search_config(), topic, rendered_content) FROM chat.messages;
    CREATE INDEX message_search_tsv ON chat.message_search USING gin (tsv);

    CREATE FUNCTION chat.set_search_config(config regconfig) RETURNS void LANGUAGE sql AS $$
      UPDATE chat.search_settings SET config = set_search_config.config;
      UPDATE chat.message_search s SET tsv = chat.message_tsv(set_search_config.config, m.topic, m.rendered_content)
      FROM chat.messages m WHERE m.id = s.message_id;
    $$;

    ALTER TABLE chat.event_queues ADD COLUMN narrow jsonb;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE chat.event_queues DROP COLUMN narrow;
    DROP FUNCTION chat.set_search_config(regconfig);
    DROP TRIGGER messages_search_text ON chat.messages;
    DROP FUNCTION chat.index_message_text();
    DROP TABLE chat.message_search;
    DROP FUNCTION chat.message_tsv(regconfig, text, text);
    DROP FUNCTION chat.search_config();
    DROP TABLE chat.search_settings;
  `);
}
