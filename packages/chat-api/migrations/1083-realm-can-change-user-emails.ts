import type { MigrationContext } from '@muse/core';

/**
 * Whether the organization lets its owners change users' email addresses (`PATCH /realm`
 * `can_change_user_emails`); off, as every organization was before.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(
    'ALTER TABLE chat.realms ADD COLUMN can_change_user_emails boolean NOT NULL DEFAULT false',
  );
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('ALTER TABLE chat.realms DROP COLUMN can_change_user_emails');
}
