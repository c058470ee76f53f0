import type { MigrationContext } from '@muse/core';

/** After a send, the API finds the message's outgoing-webhook triggers by message. */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(
    'CREATE INDEX outgoing_webhook_triggers_message ON chat.outgoing_webhook_triggers (message_id)',
  );
}
