/**
 * The one way both APIs run SQL: `rows`/`one`/`exec` for statements, `transact` for a
 * transaction, `isUniqueViolation` for the one error callers branch on.
 *
 * A transaction is ambient (as Django's `atomic`, which Zulip's actions rely on): every statement
 * issued while `transact`'s work runs — in any function it calls, however deep — runs in that
 * transaction, on its connection. A request therefore holds one pooled connection at a time, and a
 * pool of one connection serves any number of concurrent requests. Sequelize's own CLS support
 * does the joining (`Sequelize.useCLS`), here on Node's AsyncLocalStorage; `createDatabase` turns
 * it on and guards the pool against a second acquisition inside an open transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { QueryTypes, Sequelize, type Transaction } from 'sequelize';

export type { Transaction };

/** Parameters of a statement: named replacements (`:name`) in the SQL text. */
export type Params = Record<string, unknown>;

// ---- The ambient transaction --------------------------------------------------------------

type Context = Record<string, unknown>;
const contexts = new AsyncLocalStorage<Context>();

/**
 * The CLS namespace Sequelize asks for (`get`/`set`/`run`/`bind`, as cls-hooked's). `run` opens a
 * context that inherits its parent's keys, so a transaction opened inside another sees the outer
 * one (and the guard can refuse its second connection); `set` writes the current context only.
 */
const namespace = {
  get: (key: string): unknown => contexts.getStore()?.[key],
  set(key: string, value: unknown): unknown {
    const context = contexts.getStore();
    if (context) context[key] = value;
    return value;
  },
  run<T>(fn: (context: Context) => T): T {
    const context = Object.create(contexts.getStore() ?? null) as Context;
    return contexts.run(context, () => fn(context));
  },
  bind<F extends (...args: never[]) => unknown>(fn: F): F {
    return AsyncLocalStorage.bind(fn);
  },
};

/** Makes every Sequelize instance of the process join the ambient transaction. Idempotent. */
export function useAmbientTransactions(): void {
  const current = (Sequelize as unknown as { _cls?: unknown })._cls;
  if (current !== namespace) Sequelize.useCLS(namespace);
}

/** What Sequelize keeps on a transaction and does not declare. */
type OpenTransaction = Transaction & { finished?: string; sequelize: Sequelize };

/** The transaction open in this async context on `db`, if any. */
export function ambientTransaction(db: Sequelize): Transaction | undefined {
  const t = namespace.get('transaction') as OpenTransaction | null | undefined;
  return t && !t.finished && t.sequelize === db ? t : undefined;
}

/** A second pooled connection was asked for while this async context holds a transaction. */
export class NestedAcquireError extends Error {
  constructor() {
    super(
      'a pooled connection was requested inside an open transaction: run the statement in the ' +
        'ambient transaction (core sql.ts) instead of on the pool',
    );
    this.name = 'NestedAcquireError';
  }
}

interface ConnectionManager {
  getConnection(options?: object): Promise<unknown>;
}

/**
 * Wraps the pool's acquire: asking for a second connection while holding one in a transaction is
 * how a burst of requests deadlocks a pool (each holds one and waits for another). `strict` (the
 * tests) throws; otherwise the first occurrence is reported through `warn`.
 */
export function guardNestedAcquire(db: Sequelize, strict: boolean, warn?: (error: Error) => void): void {
  const pool = db.connectionManager as unknown as ConnectionManager;
  const acquire = pool.getConnection.bind(pool);
  let warned = false;
  pool.getConnection = (options?: object) => {
    if (ambientTransaction(db)) {
      const error = new NestedAcquireError();
      if (strict) return Promise.reject(error);
      if (!warned && warn) warn(error);
      warned = true;
    }
    return acquire(options);
  };
}

// ---- Statements ------------------------------------------------------------------------------

/** A parameterised SELECT (or … RETURNING). */
export async function rows<T>(
  db: Sequelize,
  sql: string,
  params: Params = {},
  transaction?: Transaction,
): Promise<T[]> {
  const found: unknown = await db.query(sql, {
    replacements: params,
    type: QueryTypes.SELECT,
    ...(transaction ? { transaction } : {}),
  });
  return found as T[];
}

/** The first row of a SELECT, or undefined. */
export async function one<T>(
  db: Sequelize,
  sql: string,
  params: Params = {},
  transaction?: Transaction,
): Promise<T | undefined> {
  return (await rows<T>(db, sql, params, transaction))[0];
}

/** A statement whose rows nobody reads. */
export async function exec(
  db: Sequelize,
  sql: string,
  params: Params = {},
  transaction?: Transaction,
): Promise<void> {
  await db.query(sql, { replacements: params, ...(transaction ? { transaction } : {}) });
}

// ---- Errors ----------------------------------------------------------------------------------

/** Postgres' SQLSTATE of an error as Sequelize or `pg` report it. */
export function sqlState(error: unknown): string | undefined {
  const e = error as { code?: string; parent?: { code?: string }; original?: { code?: string } };
  return e?.parent?.code ?? e?.original?.code ?? e?.code;
}

/** A unique constraint refused the row (23505): the caller usually answers 409. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== '23505') return false;
  if (!constraint) return true;
  const e = error as { parent?: { constraint?: string }; original?: { constraint?: string } };
  return (e.parent?.constraint ?? e.original?.constraint) === constraint;
}

/**
 * Postgres aborted the transaction because of other transactions, not because of what it did:
 * a deadlock (40P01) or a serialization failure (40001). Running it again is the documented cure.
 */
const RETRYABLE_CODES = new Set(['40P01', '40001']);
/** Attempts in all; past them the error goes on (and the API answers 503, never 500). */
const ATTEMPTS = 6;

export function isRetryable(error: unknown): boolean {
  const code = sqlState(error);
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

// ---- Transactions ----------------------------------------------------------------------------

const beforeCommitHooks = new WeakMap<Transaction, (() => Promise<void>)[]>();

/**
 * A transaction, retried as a whole on deadlock or serialization failure, so `work` must only
 * touch the database (it may run more than once). Called while a transaction is already open in
 * this async context, `work` joins it (the outer one owns commit and retry), as nested `atomic`
 * blocks do in Django.
 */
export function transact<T>(db: Sequelize, work: (t: Transaction) => Promise<T>): Promise<T> {
  const outer = ambientTransaction(db);
  if (outer) return withHooks(outer, work);
  return retrying(() => db.transaction((t) => withHooks(t, work)));
}

/** Runs `work`, then the before-commit hooks it registered (unless an outer call runs them). */
async function withHooks<T>(t: Transaction, work: (t: Transaction) => Promise<T>): Promise<T> {
  if (beforeCommitHooks.has(t)) return work(t);
  const hooks: (() => Promise<void>)[] = [];
  beforeCommitHooks.set(t, hooks);
  try {
    const result = await work(t);
    for (const hook of hooks) await hook();
    return result;
  } finally {
    beforeCommitHooks.delete(t);
  }
}

/** Runs `hook` as the transaction's last statements; the transaction must come from `transact`. */
export function beforeCommit(t: Transaction, hook: () => Promise<void>): void {
  const hooks = beforeCommitHooks.get(t);
  if (!hooks) throw new Error('a transaction with before-commit work must be opened with transact()');
  hooks.push(hook);
}
