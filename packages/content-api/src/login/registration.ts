import type { Transaction } from 'sequelize';
import { type Sequelize, one } from '@muse/core';
import { postEntry } from '../ledger/ledger.ts';

export interface LoggedInAccount {
  id: string;
  isActive: boolean;
  isAdmin: boolean;
  registered: boolean;
}

/**
 * Creates the account of `phone` unless it exists, granting `creditQuota` credits through the
 * ledger in the same transaction. Returns the new account's id, or null when it existed.
 */
export async function registerAccount(
  db: Sequelize,
  transaction: Transaction,
  phone: string,
  creditQuota: number,
): Promise<string | null> {
  const created = await one<{ id: string }>(
    db,
    `INSERT INTO content.users (phone) VALUES (:phone) ON CONFLICT (phone) DO NOTHING RETURNING id`,
    { phone },
    transaction,
  );
  if (created && creditQuota > 0) {
    await postEntry(db, transaction, {
      userId: created.id,
      amount: creditQuota,
      kind: 'grant',
      reference: `signup:${created.id}`,
      description: 'Credits for a new account',
    });
  }
  return created?.id ?? null;
}

/** Finds the account of `phone`, registering it on first login, and records the login's source and time. */
export async function loginAccount(
  db: Sequelize,
  transaction: Transaction,
  login: { phone: string; source: string | null; creditQuota: number },
): Promise<LoggedInAccount> {
  const created = await registerAccount(db, transaction, login.phone, login.creditQuota);
  const account = await one<{ id: string; is_active: boolean; is_admin: boolean }>(
    db,
    `UPDATE content.users SET last_login_at = now(), last_login_source = :source
      WHERE phone = :phone RETURNING id, is_active, is_admin`,
    { phone: login.phone, source: login.source },
    transaction,
  );
  return {
    id: account!.id,
    isActive: account!.is_active,
    isAdmin: account!.is_admin,
    registered: created !== null,
  };
}
