import { announcerOf, type Sequelize, type Transaction } from '@muse/core';

/** Where a change to an account's access is announced; its open sockets check it again (sockets/hub.ts). */
export const ACCOUNT_ACCESS_CHANNEL = 'muse_account_access';

/**
 * After `transaction` commits: the account was banned or re-enabled, its administrator rights or
 * permissions changed, or it was deleted. Every write of those columns calls it.
 */
export function announceAccountAccess(db: Sequelize, transaction: Transaction, userId: string): void {
  transaction.afterCommit(() => announcerOf(db).announce(ACCOUNT_ACCESS_CHANNEL, { user_id: userId }));
}
