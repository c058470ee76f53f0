import type { MigrationContext } from '@muse/core';

/**
 * A generation's charge is checked at commit: the submit writes the task (naming its charge)
 * before it posts the charge, so the account's balance row is locked by the last statement
 * of the transaction only, which is what bounds how fast one account can submit.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(
    'ALTER TABLE content.generations ALTER CONSTRAINT generations_charge_id_fkey DEFERRABLE INITIALLY DEFERRED',
  );
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(
    'ALTER TABLE content.generations ALTER CONSTRAINT generations_charge_id_fkey NOT DEFERRABLE',
  );
}
