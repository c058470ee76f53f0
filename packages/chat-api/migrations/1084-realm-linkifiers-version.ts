import type { MigrationContext } from '@muse/core';

/**
 * A counter of an organization's linkifier changes, bumped in the transaction that changes them
 * (actions/linkifiers.ts). Every request already reads the organization's row, so a process can
 * keep its compiled linkifiers and know from the counter, without another query, whether they are
 * still the organization's: a message send then reads no linkifiers at all.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('ALTER TABLE chat.realms ADD COLUMN linkifiers_version integer NOT NULL DEFAULT 0');
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('ALTER TABLE chat.realms DROP COLUMN linkifiers_version');
}
