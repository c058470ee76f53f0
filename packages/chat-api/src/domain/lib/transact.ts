import type { Sequelize } from '@muse/core';
import type { Transaction } from 'sequelize';

/**
 * Postgres aborted the transaction because of other transactions, not because of what it did:
 * a deadlock (40P01) or a serialization failure (40001). Running it again is the documented cure.
 */
const RETRYABLE_CODES = new Set(['40P01', '40001']);
/** Attempts in all; past them the error goes on (and the API answers 503, never 500). */
const ATTEMPTS = 6;

export function isRetryable(error: unknown): boolean {
  const e = error as { code?: string; parent?: { code?: string }; original?: { code?: string } };
  const code = e.parent?.code ?? e.original?.code ?? e.code;
  return code !== undefined && RETRYABLE_CODES.has(code);
}

/** Runs `work` again, after a short random pause, while it fails with a retryable error. */
export async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
      // Jitter, growing: two transactions that met once should not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attempt));
    }
  }
}

const beforeCommitHooks = new WeakMap<Transaction, (() => Promise<void>)[]>();

/**
 * A transaction retried as a whole on deadlock or serialization failure. Every transaction that
 * produces events is opened here: the events are written by a hook run just before commit, so
 * `work` must only touch the database (it may run more than once).
 */
export function transact<T>(db: Sequelize, work: (t: Transaction) => Promise<T>): Promise<T> {
  return retrying(() =>
    db.transaction(async (t) => {
      const hooks: (() => Promise<void>)[] = [];
      beforeCommitHooks.set(t, hooks);
      const result = await work(t);
      for (const hook of hooks) await hook();
      return result;
    }),
  );
}

/** Runs `hook` as the transaction's last statements; the transaction must come from `transact`. */
export function beforeCommit(t: Transaction, hook: () => Promise<void>): void {
  const hooks = beforeCommitHooks.get(t);
  if (!hooks) throw new Error('a transaction that produces events must be opened with transact()');
  hooks.push(hook);
}
