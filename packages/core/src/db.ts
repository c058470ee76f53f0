import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Sequelize, type QueryInterface } from 'sequelize';
import type { Umzug } from 'umzug';
import { ServiceUnavailableError } from './errors.ts';
import { TIMESTAMPTZ_OID, jsonTimestampParser } from './json-timestamps.ts';
import type { Logger } from './logger.ts';
import { watchPool } from './metrics.ts';
import { ambientTransaction, guardNestedAcquire, useAmbientTransactions } from './sql.ts';

export { Sequelize };

export interface DatabaseOptions {
  poolMax?: number;
  /** How long a caller waits for a free pooled connection before failing (503 in the APIs). */
  acquireTimeoutMs?: number;
  /**
   * Postgres cancels any statement running longer, and ends a session idle inside a transaction
   * that long, so one slow request cannot hold a pooled connection (API processes set it).
   */
  statementTimeoutMs?: number;
  /**
   * Refuse (instead of report once) a second pooled connection asked for inside an open
   * transaction. On where `MUSE_STRICT_TRANSACTIONS=1`, as in the tests.
   */
  strictTransactions?: boolean;
  /** The URL goes through a pooler in transaction mode: `selectRows` prepares no named statement. */
  transactionPooler?: boolean;
}

/** A new connection that is not established by then fails (503 in the APIs) instead of hanging. */
export const CONNECT_TIMEOUT_MS = 5_000;
/**
 * An idle pooled connection's socket sends TCP keepalive probes after this long, so one to a host
 * that died without closing it (a failed-over primary sends no RST) is noticed and dropped.
 */
export const KEEPALIVE_IDLE_MS = 10_000;
/**
 * The client gives up on an answer this long after the server's own statement timeout should have
 * fired: a server that went silent mid-query cannot hold a request (or its connection) forever.
 */
const QUERY_TIMEOUT_MARGIN_MS = 5_000;

/** Handles whose connections a transaction-mode pooler hands out per transaction. */
const pooled = new WeakSet<Sequelize>();

/** One pool per process. `pg` parses BIGINT as string by default; balances fit in a JS number. */
export function createDatabase(url: string, logger?: Logger, options: DatabaseOptions = {}): Sequelize {
  const timeouts = options.statementTimeoutMs
    ? {
        statement_timeout: options.statementTimeoutMs,
        idle_in_transaction_session_timeout: options.statementTimeoutMs,
        query_timeout: options.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
      }
    : {};
  const db = new Sequelize(url, {
    dialect: 'postgres',
    logging: logger ? (sql) => logger.trace({ sql }, 'sql') : false,
    dialectOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...timeouts },
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10_000, acquire: options.acquireTimeoutMs ?? 30_000 },
    define: { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  });
  watchPool(db);
  db.addHook('afterConnect', (connection) => guardConnection(connection as PgClient));
  if (options.transactionPooler) pooled.add(db);
  useAmbientTransactions();
  guardNestedAcquire(
    db,
    options.strictTransactions ?? process.env.MUSE_STRICT_TRANSACTIONS === '1',
    (error) => logger?.warn({ err: error }, 'nested connection acquire inside a transaction'),
  );
  return db;
}

/** What a pooled `pg` client exposes that this file uses; `_invalid` is Sequelize's mark. */
interface PgClient {
  query: (...args: unknown[]) => unknown;
  connection: { stream: { setKeepAlive(enable: boolean, initialDelay: number): void } };
  _invalid?: boolean;
}

/**
 * Keepalives on the connection's socket (Sequelize passes pg's `keepAlive` but not its initial
 * delay, so the socket is set here), and a mark on the connection once one of its statements met a
 * connection fault: the pool validates a connection before handing it out again and destroys a
 * marked one, so the next request connects anew — after a failover, to the new primary instead
 * of the old one, still up but read-only. Every statement goes through `query`, Sequelize's
 * (callback) and `selectRows`' (promise) alike.
 */
function guardConnection(client: PgClient): void {
  client.connection.stream.setKeepAlive(true, KEEPALIVE_IDLE_MS);
  const query = client.query.bind(client);
  const inspect = (error: unknown): void => {
    if (error && connectionFault(error)) client._invalid = true;
  };
  client.query = (...args: unknown[]) => {
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        inspect(error);
        callback(error, result);
      };
      return query(...args);
    }
    const result = query(...args);
    // The caller handles the rejection; this branch only looks at it.
    if (result instanceof Promise) result.catch(inspect);
    return result;
  };
}

interface TypeParsers {
  getTypeParser(oid: number, format?: string): (text: string) => unknown;
}
interface PooledClient extends TypeParsers {
  query<T>(config: {
    name?: string;
    text: string;
    values: unknown[];
    types?: TypeParsers;
  }): Promise<{ rows: T[] }>;
}
interface TransactionConnection {
  connection: PooledClient;
}
interface PoolAccess {
  getConnection(options?: object): Promise<PooledClient>;
  releaseConnection(client: PooledClient): Promise<void>;
}

const statementNames = new Map<string, string>();

/** Per connection: its own type parsers, but `timestamptz` as its JSON text (jsonTimestampParser). */
const jsonTimestampTypes = new WeakMap<PooledClient, TypeParsers>();

function withJsonTimestamps(client: PooledClient): TypeParsers {
  let types = jsonTimestampTypes.get(client);
  if (!types) {
    const timestamp = jsonTimestampParser(client.getTypeParser(TIMESTAMPTZ_OID, 'text'));
    types = {
      getTypeParser: (oid, format = 'text') =>
        oid === TIMESTAMPTZ_OID && format === 'text' ? timestamp : client.getTypeParser(oid, format),
    };
    jsonTimestampTypes.set(client, types);
  }
  return types;
}

/**
 * Runs a SELECT of the request path straight through `pg`, on a connection of Sequelize's pool
 * (same limits, acquire timeout and statement timeout). Sequelize's replacement parsing and
 * result handling were most of the CPU of a short query. `text` uses `$1…` placeholders and comes
 * from code, never from input. With `prepare` (the default) it is a named prepared statement,
 * parsed and planned once per connection (unless the handle is behind a transaction-mode pooler): name its columns, since a prepared `SELECT *` fails
 * once a migration adds a column. Rows are what `db.query(…, { type: SELECT })` answers: same
 * connection, same type parsers. Inside a transaction it runs on the transaction's connection.
 * With `jsonTimestamps`, `timestamptz` values come as the strings their Dates would be in JSON
 * (for rows answered as they are; see jsonTimestampParser).
 */
export async function selectRows<T extends object>(
  db: Sequelize,
  text: string,
  values: unknown[],
  { prepare = !pooled.has(db), jsonTimestamps = false }: { prepare?: boolean; jsonTimestamps?: boolean } = {},
): Promise<T[]> {
  let name = prepare ? statementNames.get(text) : undefined;
  if (prepare && !name) statementNames.set(text, (name = `muse_${statementNames.size + 1}`));
  const run = (client: PooledClient) => {
    const query = name ? { name, text, values } : { text, values };
    return client.query<T>(jsonTimestamps ? { ...query, types: withJsonTimestamps(client) } : query);
  };
  const open = ambientTransaction(db) as unknown as TransactionConnection | undefined;
  if (open) return (await run(open.connection)).rows;
  const pool = db.connectionManager as unknown as PoolAccess;
  const client = await pool.getConnection();
  try {
    return (await run(client)).rows;
  } finally {
    await pool.releaseConnection(client);
  }
}

/** What a migration file receives. Each service keeps its tables in a schema of its own. */
export interface MigrationContext {
  sequelize: Sequelize;
  queryInterface: QueryInterface;
  schema: string;
}

export interface Migration {
  up(context: MigrationContext): Promise<void>;
  down?(context: MigrationContext): Promise<void>;
}

export interface ServiceMigrations {
  /** Postgres schema that owns the service's tables and its migration log. */
  schema: string;
  /** Folder of `NNNN-name.ts` files, applied in name order. */
  directory: string;
}

/** A service's migration files, in the order they apply. */
async function migrationFiles(directory: string): Promise<string[]> {
  // The sources (NNNN-name.ts) or the compiled output (NNNN-name.js, beside its declarations).
  return (await readdir(directory)).filter((f) => /^\d+.*(?<!\.d)\.[jt]s$/.test(f)).sort();
}

/** umzug (and its command-line dependencies) is loaded only by processes that migrate. */
async function createMigrator(
  sequelize: Sequelize,
  { schema, directory }: ServiceMigrations,
): Promise<Umzug<MigrationContext>> {
  const { Umzug, SequelizeStorage } = await import('umzug');
  const context: MigrationContext = { sequelize, queryInterface: sequelize.getQueryInterface(), schema };
  return new Umzug<MigrationContext>({
    context,
    storage: new SequelizeStorage({ sequelize, schema, tableName: 'migrations' }),
    logger: undefined,
    migrations: async () => {
      const files = await migrationFiles(directory);
      return files.map((file) => {
        const filePath = path.join(directory, file);
        const load = async (): Promise<Migration> => import(pathToFileURL(filePath).href);
        return {
          name: file.replace(/\.[jt]s$/, ''),
          path: filePath,
          up: async () => (await load()).up(context),
          down: async () => (await load()).down?.(context),
        };
      });
    },
  });
}

/**
 * The migrations of the given services not yet applied, as umzug sees them (nothing is
 * applied): for a pod that must wait until the schema has reached its own version. Before the
 * first migration ran (no schema yet) everything is pending and nothing is touched.
 */
export async function pendingMigrations(
  sequelize: Sequelize,
  services: ServiceMigrations[],
): Promise<string[]> {
  const pending: string[] = [];
  for (const service of services) {
    const [schemas] = await sequelize.query('SELECT 1 FROM pg_namespace WHERE nspname = :schema', {
      replacements: { schema: service.schema },
    });
    const names = schemas.length
      ? (await (await createMigrator(sequelize, service)).pending()).map((m) => m.name)
      : (await migrationFiles(service.directory)).map((file) => file.replace(/\.[jt]s$/, ''));
    pending.push(...names.map((name) => `${service.schema}/${name}`));
  }
  return pending;
}

/**
 * Applies the pending migrations of the given services, in order. A Postgres advisory lock
 * makes concurrent runs (several pods starting at once) wait for each other instead of racing.
 */
export async function migrate(sequelize: Sequelize, services: ServiceMigrations[]): Promise<string[]> {
  const applied: string[] = [];
  const lockKey = 0x6d757365; // "muse"
  await sequelize.query('SELECT pg_advisory_lock(:lockKey)', { replacements: { lockKey } });
  try {
    for (const service of services) {
      await sequelize.query(`CREATE SCHEMA IF NOT EXISTS "${service.schema}"`);
      const done = await (await createMigrator(sequelize, service)).up();
      applied.push(...done.map((m) => `${service.schema}/${m.name}`));
    }
  } finally {
    await sequelize.query('SELECT pg_advisory_unlock(:lockKey)', { replacements: { lockKey } });
  }
  return applied;
}

const DATABASE_BUSY_RETRY_SECONDS = 2;
const DATABASE_DOWN_RETRY_SECONDS = 5;

/** Sequelize's names for "no connection could be made or kept". */
const CONNECTION_ERRORS = new Set([
  'SequelizeConnectionError',
  'SequelizeConnectionRefusedError',
  'SequelizeConnectionTimedOutError',
  'SequelizeHostNotFoundError',
  'SequelizeHostNotReachableError',
  'SequelizeInvalidConnectionError',
]);
/** Socket errors of the driver when the server went away mid-conversation or refuses connections. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTCONN',
]);
/**
 * SQLSTATEs of a server that is shutting down, starting up, recovering from a crash, or lost the
 * connection (class 08), or has no connection slot left: the request was not wrong.
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[1-4]|53300)$/;
/**
 * SQLSTATEs after which the connection is not to be used again: its server is shutting down or
 * ended the session (57P01–57P03), the connection failed (class 08), or the server is read-only
 * (25006) — a demoted primary or a standby that the read-write address pointed to before a
 * failover; the application opens no read-only transaction of its own.
 */
const CONNECTION_FAULT_SQLSTATES = /^(08...|57P0[1-3]|25006)$/;
/**
 * `pg` reports a socket closed under a query without a code, only with these words, and a
 * statement that outlived the client's `query_timeout` with the last ones.
 */
const CLOSED_CONNECTION =
  /Connection terminated|connection error and is not queryable|Client was closed|Query read timeout/i;

/** The SQLSTATE (or socket code) and message of an error, from `pg` or wrapped by Sequelize. */
function driverError(error: unknown): { name?: string; code?: string; message: string } {
  const e = error as {
    name?: string;
    code?: string;
    message?: string;
    parent?: { code?: string; message?: string };
    original?: { code?: string; message?: string };
  };
  // Sequelize wraps the driver's error; selectRows' come from `pg` as they are.
  const cause = e.parent ?? e.original ?? e;
  return { name: e.name, code: cause.code ?? e.code, message: cause.message ?? '' };
}

/** The error says the connection it came on is broken or leads to a server that cannot write. */
export function connectionFault(error: unknown): boolean {
  const { name, code, message } = driverError(error);
  return (
    CONNECTION_ERRORS.has(name ?? '') ||
    (code !== undefined && (SOCKET_CODES.has(code) || CONNECTION_FAULT_SQLSTATES.test(code))) ||
    CLOSED_CONNECTION.test(message)
  );
}

/**
 * Postgres errors that mean "not available right now", not "this request is wrong": too busy (no
 * pooled connection came free in time, a statement ran past the statement timeout, or concurrent
 * transactions kept aborting each other) or away (the connection refused, lost, or timed out, the
 * server shutting down, starting or recovering, or read-only as a demoted primary is during a
 * failover). The APIs answer them 503 with Retry-After rather than 500.
 */
export function databaseUnavailable(error: unknown): ServiceUnavailableError | undefined {
  const { name, code } = driverError(error);
  // 40P01/40001: a deadlock or serialization failure that outlasted the callers' retries.
  const busyCodes = ['57014', '25P03', '40P01', '40001'];
  if (name === 'SequelizeConnectionAcquireTimeoutError' || (code !== undefined && busyCodes.includes(code))) {
    return new ServiceUnavailableError(
      'The database is busy; try again shortly',
      DATABASE_BUSY_RETRY_SECONDS,
    );
  }
  if (connectionFault(error) || (code !== undefined && UNAVAILABLE_SQLSTATES.test(code))) {
    return new ServiceUnavailableError(
      'The database is unavailable; try again shortly',
      DATABASE_DOWN_RETRY_SECONDS,
    );
  }
  return undefined;
}
