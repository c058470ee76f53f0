import type { MigrationContext } from '@muse/core';
import { up as createAccessTriggers } from './0800-socket-access-events.ts';

/**
 * The access changes that open sockets follow (a conversation's visibility, owner or deletion;
 * an account's ban, administrator rights, permissions or deletion) are announced by the code
 * that writes them, after commit, through the process's one bus (`announceAccessChanged` in
 * src/conversations/messages.ts, `announceAccountAccess` in src/users/access-events.ts), as every
 * other announcement is. Migration 0800's triggers announced the same inside the writing
 * transaction, through Postgres alone; they go. A change written with SQL by hand is no longer
 * announced: the sockets' catch-up read (every 2 s) still sees a conversation's, not an account's.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP TRIGGER account_deleted ON content.users;
    DROP TRIGGER account_access_changed ON content.users;
    DROP FUNCTION content.announce_account_access();
    DROP TRIGGER conversation_deleted ON content.conversations;
    DROP TRIGGER conversation_access_changed ON content.conversations;
    DROP FUNCTION content.announce_conversation_access();
  `);
}

export async function down(context: MigrationContext): Promise<void> {
  await createAccessTriggers(context);
}
