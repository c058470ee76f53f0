import type { MigrationContext } from '@muse/core';

/**
 * Organizations the Kubernetes operator owns: `managed_by` names the ChatOrganization resource
 * (`ChatOrganization/<namespace>/<name>`). Others were made from the shell and are left alone.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`ALTER TABLE chat.realms ADD COLUMN managed_by text UNIQUE`);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`ALTER TABLE chat.realms DROP COLUMN managed_by`);
}
