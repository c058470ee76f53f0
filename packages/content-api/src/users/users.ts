import type { Transaction } from 'sequelize';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  type Sequelize,
  exec,
  one,
  rows,
  transact,
} from '@muse/core';
import { effectivePermissions, isPermissionTriple } from '../permissions/permissions.ts';
import { postEntry } from '../ledger/ledger.ts';
import type { RequestBody, Schema } from '../http/contract.ts';
import type { operations } from '@muse/sdk/generated/content';
import { selectUserRow, type UserRow } from './user-row.ts';
import { announceAccountAccess } from './access-events.ts';
import { announceAccessChanged } from '../conversations/messages.ts';

const effectiveOf = (granted: readonly string[], revoked: readonly string[]) =>
  [...effectivePermissions({ isAdmin: false, granted, revoked })].sort();
const DEFAULT_EFFECTIVE: readonly string[] = effectiveOf([], []);

/** A non-administrator's effective permissions in order (most accounts': the defaults, sorted once). */
function sortedPermissions(granted: readonly string[], revoked: readonly string[]): readonly string[] {
  return !granted.length && !revoked.length ? DEFAULT_EFFECTIVE : effectiveOf(granted, revoked);
}

/** The account as the API shows it, with its effective permissions spelled out. */
export function toUserView(row: UserRow) {
  return {
    id: row.id,
    phone: row.phone,
    nickname: row.nickname,
    avatar_file_id: row.avatar_file_id,
    bio: row.bio,
    is_active: row.is_active,
    is_admin: row.is_admin,
    balance: Number(row.balance),
    permissions: {
      granted: row.permissions_granted,
      revoked: row.permissions_revoked,
      effective: row.is_admin ? ['*'] : sortedPermissions(row.permissions_granted, row.permissions_revoked),
    },
    last_login_at: row.last_login_at,
    last_login_source: row.last_login_source,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function findUser(db: Sequelize, id: string, transaction?: Transaction): Promise<UserRow> {
  const row = transaction
    ? await one<UserRow>(db, 'SELECT * FROM content.users WHERE id = :id FOR UPDATE', { id }, transaction)
    : await selectUserRow(db, id);
  if (!row) throw new NotFoundError('No such user');
  return row;
}

/**
 * Refuses (409) a change that would leave no active administrator: nobody could grant the rights
 * back through the API. Every administrator's row is locked first, in id order, so two
 * administrators demoting each other at once cannot both pass; callers take this lock before
 * any other user row.
 */
async function keepAnAdministrator(db: Sequelize, transaction: Transaction, id: string, change: string) {
  const administrators = await rows<{ id: string }>(
    db,
    'SELECT id FROM content.users WHERE is_admin AND is_active ORDER BY id FOR UPDATE',
    {},
    transaction,
  );
  if (administrators.length === 1 && administrators[0]!.id === id)
    throw new ConflictError(`The last active administrator cannot ${change}`);
}

export type AdminUserChanges = Schema<'UserAdminUpdate'>;

const PROFILE_COLUMNS = ['nickname', 'bio', 'avatar_file_id', 'is_active'] as const;

/**
 * Applies profile fields, the active flag and a credit adjustment in one transaction: a refused
 * adjustment (it would take the balance below zero: 422) leaves the profile unchanged too.
 */
export async function updateUser(db: Sequelize, id: string, changes: AdminUserChanges): Promise<UserRow> {
  return transact(db, async (transaction) => {
    if (changes.is_active === false) await keepAnAdministrator(db, transaction, id, 'be banned');
    const before = await findUser(db, id, transaction);
    const columns = PROFILE_COLUMNS.filter((column) => changes[column] !== undefined);
    if (columns.length) {
      await exec(
        db,
        `UPDATE content.users SET ${columns.map((c) => `${c} = :${c}`).join(', ')}, updated_at = now() WHERE id = :id`,
        { id, ...Object.fromEntries(columns.map((c) => [c, changes[c]])) },
        transaction,
      );
    }
    if (changes.is_active !== undefined && changes.is_active !== before.is_active)
      announceAccountAccess(db, transaction, id);
    if (changes.credit_adjustment) await adjustCredits(db, transaction, id, changes.credit_adjustment);
    return findUser(db, id, transaction);
  });
}

async function adjustCredits(
  db: Sequelize,
  transaction: Transaction,
  userId: string,
  adjustment: { amount: number; reason: string; reference?: string },
): Promise<void> {
  try {
    await postEntry(db, transaction, {
      userId,
      amount: adjustment.amount,
      kind: 'adjustment',
      description: adjustment.reason,
      // Ledger references are unique per kind across all accounts; scoping by account keeps an
      // administrator's reference (a ticket number, a campaign name) from swallowing another's credit.
      ...(adjustment.reference ? { reference: `admin:${userId}:${adjustment.reference}` } : {}),
    });
  } catch (error) {
    if ((error as { status?: number }).status !== 402) throw error;
    throw new ValidationError('The adjustment would take the balance below zero', [
      { path: 'credit_adjustment.amount', message: (error as Error).message },
    ]);
  }
}

/** `reset` puts triples back to the default: neither granted nor revoked. */
export type PermissionChanges = RequestBody<operations['updateUserPermission']>;

/** Grants or revokes administrator rights and individual permission triples. */
export async function changePermissions(
  db: Sequelize,
  id: string,
  changes: PermissionChanges,
): Promise<UserRow> {
  const named = [...(changes.grant ?? []), ...(changes.revoke ?? []), ...(changes.reset ?? [])];
  const unknown = named.filter((triple) => !isPermissionTriple(triple));
  if (unknown.length) {
    throw new ValidationError(
      'Not a permission triple (resource:operation:scope)',
      unknown.map((triple) => ({ path: 'permissions', message: `${triple} is not a known permission` })),
    );
  }
  return transact(db, async (transaction) => {
    if (changes.is_admin === false)
      await keepAnAdministrator(db, transaction, id, 'give up administrator rights');
    const user = await findUser(db, id, transaction);
    const granted = new Set(user.permissions_granted);
    const revoked = new Set(user.permissions_revoked);
    const move = (triple: string, into: Set<string> | null, outOf: Set<string>[]) => {
      outOf.forEach((set) => set.delete(triple));
      into?.add(triple);
    };
    for (const triple of changes.reset ?? []) move(triple, null, [granted, revoked]);
    for (const triple of changes.grant ?? []) move(triple, granted, [revoked]);
    for (const triple of changes.revoke ?? []) move(triple, revoked, [granted]);
    await exec(
      db,
      `UPDATE content.users SET is_admin = :isAdmin, permissions_granted = CAST(:granted AS text[]),
              permissions_revoked = CAST(:revoked AS text[]), updated_at = now() WHERE id = :id`,
      {
        id,
        isAdmin: changes.is_admin ?? user.is_admin,
        granted: toPgArray([...granted].sort()),
        revoked: toPgArray([...revoked].sort()),
      },
      transaction,
    );
    announceAccountAccess(db, transaction, id);
    return findUser(db, id, transaction);
  });
}

/** Triples are `[a-z_]+:[a-z]+:[a-z]+`, so a plain `{a,b}` literal needs no quoting. */
function toPgArray(values: string[]): string {
  return `{${values.join(',')}}`;
}

export async function deleteUser(db: Sequelize, id: string): Promise<void> {
  await transact(db, async (transaction) => {
    await keepAnAdministrator(db, transaction, id, 'be deleted');
    // The account's conversations go with it (ON DELETE CASCADE): their readers are told too.
    const owned = await rows<{ id: string }>(
      db,
      'SELECT id FROM content.conversations WHERE owner_id = :id',
      {
        id,
      },
    );
    const deleted = await rows(db, 'DELETE FROM content.users WHERE id = :id RETURNING id', { id });
    if (deleted.length === 0) throw new NotFoundError('No such user');
    announceAccountAccess(db, transaction, id);
    announceAccessChanged(
      db,
      transaction,
      owned.map((conversation) => conversation.id),
    );
  });
}

export async function userStats(db: Sequelize): Promise<Schema<'UserStats'>> {
  const row = await one<Record<keyof Schema<'UserStats'>, string>>(
    db,
    `SELECT count(*) AS total,
            count(*) FILTER (WHERE is_active) AS active,
            count(*) FILTER (WHERE NOT is_active) AS banned,
            count(*) FILTER (WHERE is_admin) AS administrators,
            count(*) FILTER (WHERE created_at > now() - interval '1 day') AS new_last_day,
            count(*) FILTER (WHERE created_at > now() - interval '7 days') AS new_last_week,
            count(*) FILTER (WHERE created_at > now() - interval '30 days') AS new_last_month,
            count(*) FILTER (WHERE last_login_at > now() - interval '1 day') AS logged_in_last_day
       FROM content.users`,
  );
  // Postgres counts are bigint, which arrive as strings.
  const count = (name: keyof Schema<'UserStats'>) => Number(row![name]);
  return {
    total: count('total'),
    active: count('active'),
    banned: count('banned'),
    administrators: count('administrators'),
    new_last_day: count('new_last_day'),
    new_last_week: count('new_last_week'),
    new_last_month: count('new_last_month'),
    logged_in_last_day: count('logged_in_last_day'),
  };
}
