import { QueryTypes } from 'sequelize';
import type { Sequelize } from '@muse/core';
import { readServerSettings } from '../server-config/server-config.ts';
import { registerAccount } from '../login/registration.ts';

/**
 * Makes `phone` an administrator, registering the account first when the number never logged
 * in (with the default credits, like any new account). Returns whether anything changed.
 */
export async function grantAdministrator(
  db: Sequelize,
  phone: string,
): Promise<{ id: string; changed: boolean }> {
  return db.transaction(async (transaction) => {
    const { default_credit_quota: quota } = await readServerSettings(db, transaction);
    await registerAccount(db, transaction, phone, quota);
    const [promoted] = await db.query<{ id: string }>(
      `UPDATE content.users SET is_admin = true, updated_at = now() WHERE phone = :phone AND NOT is_admin RETURNING id`,
      { replacements: { phone }, type: QueryTypes.SELECT, transaction },
    );
    const [user] = await db.query<{ id: string }>('SELECT id FROM content.users WHERE phone = :phone', {
      replacements: { phone },
      type: QueryTypes.SELECT,
      transaction,
    });
    return { id: user!.id, changed: Boolean(promoted) };
  });
}
