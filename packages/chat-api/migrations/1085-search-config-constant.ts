import type { MigrationContext } from '@muse/core';

/**
 * `chat.search_config()` returns the text-search configuration as a constant (an immutable
 * function whose body `chat.set_search_config` rewrites) instead of reading `chat.search_settings`
 * on each call. A search's `websearch_to_tsquery(chat.search_config(), …)` is then folded into one
 * `tsquery` when the statement is planned; with the reading function Postgres called it again for
 * every message it tested, a page of a common word walking thousands of them (two thirds of the
 * bare search's time at 100,000 messages). Redefining the function invalidates every plan that
 * folded it, in every session (a prepared statement's, the trigger's), so a new configuration is
 * used from the next statement on. `chat.search_settings` stays the record of the configuration.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE OR REPLACE FUNCTION chat.set_search_config(config regconfig) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      previous regconfig := (SELECT s.config FROM chat.search_settings s LIMIT 1);
    BEGIN
      UPDATE chat.search_settings SET config = set_search_config.config;
      EXECUTE format(
        'CREATE OR REPLACE FUNCTION chat.search_config() RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L',
        format('SELECT %L::regconfig', set_search_config.config));
      -- A vector and a query must be built with the same configuration.
      IF set_search_config.config IS DISTINCT FROM previous THEN
        UPDATE chat.message_search s SET tsv = chat.message_tsv(set_search_config.config, m.topic, m.rendered_content)
        FROM chat.messages m WHERE m.id = s.message_id;
      END IF;
    END $$;
    SELECT chat.set_search_config(config) FROM chat.search_settings;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE OR REPLACE FUNCTION chat.search_config() RETURNS regconfig LANGUAGE sql STABLE AS $$
      SELECT config FROM chat.search_settings LIMIT 1
    $$;
    CREATE OR REPLACE FUNCTION chat.set_search_config(config regconfig) RETURNS void LANGUAGE sql AS $$
      UPDATE chat.search_settings SET config = set_search_config.config;
      UPDATE chat.message_search s SET tsv = chat.message_tsv(set_search_config.config, m.topic, m.rendered_content)
      FROM chat.messages m WHERE m.id = s.message_id;
    $$;
  `);
}
