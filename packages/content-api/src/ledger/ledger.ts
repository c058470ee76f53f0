import type { Transaction } from 'sequelize';
import {
  ConflictError,
  NotFoundError,
  PaymentRequiredError,
  type Sequelize,
  isUniqueViolation,
  one,
  rows,
} from '@muse/core';

/**
 * Credits move only through this module: each change of a balance writes its ledger entry
 * (a transaction_log) in the same database transaction. The schema backs every rule —
 * the balance cannot go below zero, an entry with a `reference` (an idempotency key such as
 * `generation:<id>`) exists once per kind, and a refund reverses exactly one charge once.
 */
export type LedgerKind = 'grant' | 'charge' | 'refund' | 'topup' | 'adjustment' | 'invite';

export interface LedgerEntry {
  id: string;
  owner_id: string;
  amount: number;
  balance_after: number;
  kind: LedgerKind;
  reference: string | null;
  reverses_id: string | null;
  description: string;
  created_at: Date;
}

export interface PostEntry {
  /** The entry's id when the caller needs it before posting (a row that refers to it); default: a new one. */
  id?: string;
  userId: string;
  /** Positive credits, negative debits; never zero. */
  amount: number;
  kind: Exclude<LedgerKind, 'refund'>;
  reference?: string;
  description?: string;
}

/**
 * Applies one entry inside `transaction`. Posting the same kind + reference again returns the
 * first entry and moves nothing. A debit larger than the balance throws 402 and moves nothing.
 * One statement: the balance row stays locked from this statement to the commit only, which
 * is what bounds how fast one account can be charged.
 */
export async function postEntry(
  db: Sequelize,
  transaction: Transaction,
  entry: PostEntry,
): Promise<LedgerEntry> {
  if (!Number.isSafeInteger(entry.amount) || entry.amount === 0)
    throw new Error('ledger amounts are non-zero integers');
  const [row] = await run(() =>
    rows<LedgerEntry>(
      db,
      `WITH earlier AS (
         SELECT * FROM content.transaction_logs WHERE kind = :kind AND reference = :reference
       ), moved AS (
         UPDATE content.users SET balance = balance + :amount, updated_at = now()
          WHERE id = :userId AND balance + :amount >= 0 AND NOT EXISTS (SELECT 1 FROM earlier)
          RETURNING balance
       ), posted AS (
         INSERT INTO content.transaction_logs (id, owner_id, amount, balance_after, kind, reference, description)
         SELECT COALESCE(CAST(:id AS uuid), gen_random_uuid()), :userId, :amount, balance, :kind, :reference, :description
           FROM moved
         RETURNING *
       )
       SELECT * FROM earlier UNION ALL SELECT * FROM posted`,
      {
        id: entry.id ?? null,
        userId: entry.userId,
        amount: entry.amount,
        kind: entry.kind,
        reference: entry.reference ?? null,
        description: entry.description ?? '',
      },
      transaction,
    ),
  );
  if (row) return normalise(row);
  return refuseDebit(db, transaction, entry.userId, entry.amount);
}

/** A debit that its caller writes together with its own rows (see debitClauses). */
export interface Debit {
  /** The entry's id, so the caller's rows can name it. */
  id: string;
  userId: string;
  /** Positive: how many credits leave the balance. */
  cost: number;
  kind: 'charge';
  /** Unique per kind; a fresh one (a second post of it fails the caller's statement). */
  reference: string;
  description: string;
}

/**
 * A debit as two common table expressions for a statement that also writes the caller's rows, so
 * that everything commits in one round trip and the balance row stays locked inside Postgres
 * only: `ledger_moved` (the new balance; no row when it does not cover the cost) and
 * `ledger_posted` (the entry's id). The caller's rows must depend on `ledger_posted`, so that a
 * short balance writes nothing; `refuseDebit` then says why.
 */
export function debitClauses(debit: Debit): { sql: string; replacements: Record<string, unknown> } {
  if (!Number.isSafeInteger(debit.cost) || debit.cost <= 0) throw new Error('a debit is a positive integer');
  return {
    sql: `ledger_moved AS (
         UPDATE content.users SET balance = balance - :ledgerCost, updated_at = now()
          WHERE id = :ledgerUserId AND balance >= :ledgerCost
          RETURNING balance
       ), ledger_posted AS (
         INSERT INTO content.transaction_logs (id, owner_id, amount, balance_after, kind, reference, description)
         SELECT CAST(:ledgerId AS uuid), CAST(:ledgerUserId AS uuid), :ledgerAmount, balance, :ledgerKind, :ledgerReference, :ledgerDescription
           FROM ledger_moved
         RETURNING id
       )`,
    replacements: {
      ledgerId: debit.id,
      ledgerUserId: debit.userId,
      ledgerCost: debit.cost,
      ledgerAmount: -debit.cost,
      ledgerKind: debit.kind,
      ledgerReference: debit.reference,
      ledgerDescription: debit.description,
    },
  };
}

/** Reverses a charge; a second refund of the same charge returns the first and moves nothing. */
export async function refundCharge(
  db: Sequelize,
  transaction: Transaction,
  chargeId: string,
  description = 'Refund',
): Promise<LedgerEntry> {
  const charge = await one<LedgerEntry>(
    db,
    `SELECT * FROM content.transaction_logs WHERE id = :chargeId FOR UPDATE`,
    { chargeId },
    transaction,
  );
  if (!charge || charge.kind !== 'charge') throw new NotFoundError('No such charge');
  const previous = await one<LedgerEntry>(
    db,
    `SELECT * FROM content.transaction_logs WHERE reverses_id = :chargeId`,
    { chargeId },
    transaction,
  );
  if (previous) return normalise(previous);
  const amount = -Number(charge.amount);
  const balance = await moveBalance(db, transaction, charge.owner_id, amount);
  return insertEntry(db, transaction, {
    userId: charge.owner_id,
    amount,
    kind: 'refund',
    reference: charge.reference,
    description,
    balanceAfter: balance,
    reversesId: chargeId,
  });
}

async function moveBalance(
  db: Sequelize,
  transaction: Transaction,
  userId: string,
  amount: number,
): Promise<number> {
  const row = await one<{ balance: string }>(
    db,
    `UPDATE content.users SET balance = balance + :amount, updated_at = now()
      WHERE id = :userId AND balance + :amount >= 0 RETURNING balance`,
    { userId, amount },
    transaction,
  );
  if (row) return Number(row.balance);
  return refuseDebit(db, transaction, userId, amount);
}

/** Why a balance did not move: no such user (404) or not enough credits (402). */
export async function refuseDebit(
  db: Sequelize,
  transaction: Transaction | undefined,
  userId: string,
  amount: number,
): Promise<never> {
  const user = await one<{ balance: string }>(
    db,
    `SELECT balance FROM content.users WHERE id = :userId`,
    { userId },
    transaction,
  );
  if (!user) throw new NotFoundError('No such user');
  throw new PaymentRequiredError(`The balance (${user.balance}) is lower than the cost (${-amount})`, {
    balance: Number(user.balance),
    required: -amount,
  });
}

/** A concurrent transaction posted the same reference first; this one rolls back whole. */
async function run<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new ConflictError('This ledger entry was already posted by a concurrent request');
    }
    throw error;
  }
}

async function insertEntry(
  db: Sequelize,
  transaction: Transaction,
  entry: {
    userId: string;
    amount: number;
    kind: LedgerKind;
    reference: string | null;
    description: string;
    balanceAfter: number;
    reversesId: string;
  },
): Promise<LedgerEntry> {
  const [row] = await run(() =>
    rows<LedgerEntry>(
      db,
      `INSERT INTO content.transaction_logs (owner_id, amount, balance_after, kind, reference, reverses_id, description)
       VALUES (:userId, :amount, :balanceAfter, :kind, :reference, :reversesId, :description) RETURNING *`,
      entry,
      transaction,
    ),
  );
  return normalise(row!);
}

/** pg returns BIGINT as text; balances and amounts fit a JS number. */
function normalise(row: LedgerEntry): LedgerEntry {
  return { ...row, amount: Number(row.amount), balance_after: Number(row.balance_after) };
}
