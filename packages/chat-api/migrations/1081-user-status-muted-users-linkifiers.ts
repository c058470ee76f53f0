import type { MigrationContext } from '@muse/core';

/**
 * What stock clients read beside messages: a user's status (text and emoji, Zulip's
 * `user_status`), whom a user muted (`muted_users`: their messages arrive read), and the
 * organization's linkifiers (patterns the Markdown renderer turns into links, in `order`).
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE chat.user_status (
      user_id integer PRIMARY KEY REFERENCES chat.users(id),
      status_text text NOT NULL DEFAULT '',
      emoji_name text NOT NULL DEFAULT '',
      emoji_code text NOT NULL DEFAULT '',
      reaction_type text NOT NULL DEFAULT 'unicode_emoji'
    );
    CREATE TABLE chat.muted_users (
      user_id integer NOT NULL REFERENCES chat.users(id),
      muted_user_id integer NOT NULL REFERENCES chat.users(id),
      date_muted timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, muted_user_id)
    );
    CREATE INDEX muted_users_muted ON chat.muted_users (muted_user_id);
    CREATE TABLE chat.linkifiers (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES chat.realms(id),
      pattern text NOT NULL,
      url_template text NOT NULL,
      "order" integer NOT NULL DEFAULT 0
    );
    CREATE INDEX linkifiers_realm ON chat.linkifiers (realm_id, "order", id);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TABLE chat.linkifiers;
    DROP TABLE chat.muted_users;
    DROP TABLE chat.user_status;
  `);
}
