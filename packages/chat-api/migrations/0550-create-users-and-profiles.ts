import type { MigrationContext } from '@muse/core';

/**
 * - `can_create_users`: Zulip's extra right an administrator needs for `POST /users`.
 * - `awaiting_first_login`: an account created over the API keeps its creation time as
 *   `date_joined` until its first login, which then becomes `date_joined`.
 * - `avatar_source`: `G` (the external provider's picture of the email) or `D` (the server's
 *   default picture: a deleted profile shows no picture, not the Gravatar of its address).
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE chat.users
      ADD COLUMN can_create_users boolean NOT NULL DEFAULT false,
      ADD COLUMN awaiting_first_login boolean NOT NULL DEFAULT false,
      ADD COLUMN avatar_source text NOT NULL DEFAULT 'G' CHECK (avatar_source IN ('G', 'D'));
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE chat.users DROP COLUMN can_create_users, DROP COLUMN awaiting_first_login, DROP COLUMN avatar_source;
  `);
}
