import type { MigrationContext } from '@muse/core';

/**
 * Which generators and code providers the Kubernetes operator owns: `managed_by` names the
 * custom resource (`<Kind>/<namespace>/<name>`). Rows without it were made through the admin API
 * or the bootstrap file, and the operator leaves them alone.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE content.generators ADD COLUMN managed_by text UNIQUE;
    ALTER TABLE content.verification_code_providers ADD COLUMN managed_by text UNIQUE;
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE content.generators DROP COLUMN managed_by;
    ALTER TABLE content.verification_code_providers DROP COLUMN managed_by;
  `);
}
