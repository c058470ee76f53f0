import { type Sequelize, one, transact } from '@muse/core';
import { readServerSettings } from '../server-config/server-config.ts';
import { registerAccount } from '../login/registration.ts';
import { announceAccountAccess } from '../users/access-events.ts';

/**
 * Makes `phone` an administrator, registering the account first when the number never logged
 * in (with the default credits, like any new account). Returns whether anything changed.
 */
export async function grantAdministrator(
  db: Sequelize,
  phone: string,
): Promise<{ id: string; changed: boolean }> {
  return transact(db, async (transaction) => {
    const { default_credit_quota: quota } = await readServerSettings(db, transaction);
    await registerAccount(db, transaction, phone, quota);
    const promoted = await one<{ id: string }>(
      db,
      `UPDATE content.users SET is_admin = true, updated_at = now() WHERE phone = :phone AND NOT is_admin RETURNING id`,
      { phone },
      transaction,
    );
    const user = await one<{ id: string }>(
      db,
      'SELECT id FROM content.users WHERE phone = :phone',
      { phone },
      transaction,
    );
    if (promoted) announceAccountAccess(db, transaction, promoted.id);
    return { id: user!.id, changed: Boolean(promoted) };
  });
}
