import type { MigrationContext } from '@muse/core';

/** Runtime configuration that administrators change through the API: one row, settings as JSON. */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE content.server_config (
      id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
      settings jsonb NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO content.server_config (id) VALUES (1);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE content.server_config');
}
