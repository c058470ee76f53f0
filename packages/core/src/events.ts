import pg from 'pg';
import type { Sequelize, Transaction } from 'sequelize';
import { CONNECT_TIMEOUT_MS, KEEPALIVE_IDLE_MS, connectionFault } from './db.ts';
import type { Logger } from './logger.ts';
import { dispatchPayload, type EventHandler, type MessageBus } from './bus.ts';

/** How often the listening connection is checked: still answering, and on a server that can write. */
const BUS_CHECK_MS = 5_000;
/** A statement of the bus (a publish, a LISTEN, the check) unanswered by then means the connection is dead. */
const BUS_QUERY_TIMEOUT_MS = 10_000;

/**
 * Cross-process events over Postgres LISTEN/NOTIFY. Any API process or worker can publish;
 * every process listening on the channel receives it. Publishing inside a transaction
 * delivers the event only if the transaction commits. Payloads stay small (Postgres caps
 * them at 8000 bytes): send ids and states, not documents.
 *
 * The listening connection must follow the read-write server through a failover: a LISTEN on
 * the old primary, still up but read-only, or on a dead host that sent no reset, would hear
 * nothing more and say nothing. So every BUS_CHECK_MS the connection is asked whether its server
 * can write, each statement has a client-side timeout, and the socket sends keepalives; a
 * connection that fails any of these is dropped, a new one made (and checked) through the same
 * address, every channel listened to again, and the subscribers told to catch up (`resumed`).
 */
export class EventBus implements MessageBus {
  private readonly url: string;
  private readonly logger: Logger;
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private readonly resumers = new Set<() => void>();
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private reconnecting: Promise<void> | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  /** The last query sent on the connection: the next one waits for it (see `inTurn`). */
  private lastQuery: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(url: string, logger: Logger) {
    this.url = url;
    this.logger = logger;
  }

  /** Sends an event through the given database handle (a transaction defers it to commit). */
  static async publish(
    sequelize: Sequelize,
    channel: string,
    payload: unknown,
    transaction?: Transaction,
  ): Promise<void> {
    await sequelize.query('SELECT pg_notify(:channel, :payload)', {
      replacements: { channel, payload: JSON.stringify(payload) },
      ...(transaction ? { transaction } : {}),
    });
  }

  /**
   * Sends an event now, outside any transaction (callers publish after their commit, so no
   * writer's commit waits on the instance-wide NOTIFY lock), over the listening connection.
   */
  async publish(channel: string, payload: unknown): Promise<void> {
    // A notification sent on a server that can no longer write (an old primary left up, read-only)
    // reaches only that server's listeners, never the processes already on the new primary: the
    // same statement says whether it was such a server, and then it is sent again on a new
    // connection (the old one dropped), once.
    const notify = async (client: pg.Client) => {
      const { rows } = await client.query<{ read_only: boolean }>(
        `SELECT pg_notify($1, $2), ${READ_ONLY_SQL} AS read_only`,
        [channel, JSON.stringify(payload)],
      );
      if (rows[0]?.read_only) throw readOnlyServer();
    };
    try {
      await this.inTurn(notify);
    } catch (error) {
      if (!connectionFault(error)) throw error;
      await this.inTurn(notify);
    }
  }

  /** Registers a handler; returns a function that removes it (and stops listening when it was the last). */
  async subscribe(
    channel: string,
    handler: EventHandler,
    resumed?: () => void,
  ): Promise<() => Promise<void>> {
    if (!this.handlers.has(channel)) {
      // The channel counts as listened to only once LISTEN succeeded, so a failure here is retried next time.
      await this.inTurn((client) => client.query(`LISTEN ${quoteIdentifier(channel)}`));
      if (!this.handlers.has(channel)) this.handlers.set(channel, new Set());
    }
    this.handlers.get(channel)!.add(handler);
    // A function of its own per subscription: two subscribers passing the same one are told twice.
    const resume = resumed ? () => resumed() : undefined;
    if (resume) this.resumers.add(resume);
    return async () => {
      if (resume) this.resumers.delete(resume);
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      if (this.client)
        await this.inTurn((client) => client.query(`UNLISTEN ${quoteIdentifier(channel)}`)).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.checkTimer);
    this.handlers.clear();
    this.resumers.clear();
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }

  /**
   * Runs a query on the connection once the previous one has finished: publishes, LISTENs and
   * UNLISTENs come from independent callers, and pg (from version 9) refuses a query sent while
   * another runs on the same client. A query that meets a connection fault drops the connection.
   */
  private inTurn<T>(query: (client: pg.Client) => Promise<T>): Promise<T> {
    const turn = this.lastQuery.then(async () => {
      const client = await this.connect();
      try {
        return await query(client);
      } catch (error) {
        if (connectionFault(error)) this.lose(client, error);
        throw error;
      }
    });
    this.lastQuery = turn.catch(() => {});
    return turn;
  }

  private connect(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the event bus is closed'));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** A new connection, used only once its server is known to write (else it is closed and this throws). */
  private async open(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: BUS_QUERY_TIMEOUT_MS,
    });
    client.on('notification', (message) =>
      dispatchPayload(this.handlers, this.logger, message.channel, message.payload),
    );
    client.on('error', (error) => this.lose(client, error));
    client.on('end', () => this.lose(client, new Error('the event bus connection ended')));
    try {
      await client.connect();
      await assertWritable(client);
    } catch (error) {
      forget(client);
      throw error;
    }
    this.client = client;
    this.checkTimer ??= setInterval(() => void this.check(), BUS_CHECK_MS).unref();
    return client;
  }

  /** The periodic check; a failure has dropped the connection already (see `inTurn`). */
  private async check(): Promise<void> {
    if (!this.client || this.reconnecting) return;
    const client = this.client;
    await this.inTurn(assertWritable).catch((error: unknown) => this.lose(client, error));
  }

  /** Drops `client` (unless it was dropped already) and starts listening again on a new one. */
  private lose(client: pg.Client, error: unknown): void {
    if (this.client !== client || this.closed) return;
    this.logger.warn({ err: error }, 'event bus connection lost; reconnecting');
    this.client = undefined;
    forget(client);
    this.reconnecting ??= this.reconnect().finally(() => (this.reconnecting = undefined));
  }

  /**
   * Listens to every channel again on a new connection, then tells the subscribers: events sent
   * in between are lost, as with any NOTIFY, and the subscribers read the tables instead.
   */
  private async reconnect(): Promise<void> {
    for (let attempt = 1; !this.closed; attempt++) {
      try {
        const listening = await this.inTurn(async (client) => {
          for (const channel of this.handlers.keys())
            await client.query(`LISTEN ${quoteIdentifier(channel)}`);
          return client;
        });
        // Lost again meanwhile: that loss found this loop running, so this loop goes on.
        if (listening !== this.client) throw new Error('the event bus connection was lost again');
        this.logger.info({ attempt }, 'event bus listening again');
        for (const resume of [...this.resumers]) {
          try {
            resume();
          } catch (error) {
            this.logger.error({ err: error }, 'event bus subscriber failed to resume');
          }
        }
        return;
      } catch (error) {
        this.logger.warn({ err: error, attempt }, 'event bus reconnect failed');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 200 * 2 ** attempt)));
      }
    }
  }
}

/**
 * Closes a connection without waiting (a silent host never answers the goodbye; keepalives end
 * the socket), deaf to whatever it still says: a late socket error must not go unhandled.
 */
function forget(client: pg.Client): void {
  client.removeAllListeners();
  client.on('error', () => {});
  void client.end().catch(() => {});
}

/**
 * Throws unless the connection's server takes writes: a standby, or a demoted primary that was
 * made read-only, hears no NOTIFY sent on the new primary (SQLSTATE 25006, as a write there meets).
 */
/** Whether the server is a standby or a primary made read-only: it cannot carry the bus. */
const READ_ONLY_SQL = "pg_is_in_recovery() OR current_setting('default_transaction_read_only') = 'on'";

const readOnlyServer = () =>
  Object.assign(new Error('the event bus connection leads to a read-only server'), { code: '25006' });

async function assertWritable(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ read_only: boolean }>(`SELECT ${READ_ONLY_SQL} AS read_only`);
  if (rows[0]?.read_only) throw readOnlyServer();
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Postgres caps a notification at 8000 bytes; a batch is cut into messages below this. */
const MAX_BATCH_BYTES = 7500;

/**
 * Publishing after commit, batched per process: what the process announces within one turn of
 * the event loop goes out as one message per channel (a JSON array of the payloads, in the order
 * they were announced), through the bus and outside any transaction, so no writer's commit waits
 * on the bus (with Postgres: the instance-wide lock every commit with a pending NOTIFY takes).
 * A failed publish is logged and dropped: every consumer has a catch-up read of the tables.
 */
export class Announcer {
  private readonly bus: Pick<MessageBus, 'publish'>;
  private readonly logger: Logger | undefined;
  private outgoing = new Map<string, unknown[]>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(bus: Pick<MessageBus, 'publish'>, logger?: Logger) {
    this.bus = bus;
    this.logger = logger;
  }

  /** Queues `payload` for the next batch of `channel`; call it only once the change committed. */
  announce(channel: string, payload: unknown): void {
    if (this.outgoing.size === 0) setImmediate(() => void this.flush());
    let batch = this.outgoing.get(channel);
    if (!batch) this.outgoing.set(channel, (batch = []));
    batch.push(payload);
  }

  /** Resolves once everything announced so far has been handed to the bus. */
  flush(): Promise<void> {
    const batches = this.outgoing;
    this.outgoing = new Map();
    // Batches go out one after another, so a channel's payloads keep the order they were announced in.
    this.flushing = this.flushing.then(async () => {
      for (const [channel, payloads] of batches) {
        for (const chunk of chunks(payloads)) {
          await this.bus
            .publish(channel, chunk)
            .catch((error: unknown) =>
              this.logger?.warn(
                { err: error, channel },
                'an announcement was not published; readers catch up',
              ),
            );
        }
      }
    });
    return this.flushing;
  }
}

/** Payloads in arrays of at most MAX_BATCH_BYTES of JSON (one larger payload travels alone). */
function chunks(payloads: unknown[]): unknown[][] {
  const out: unknown[][] = [];
  let current: unknown[] = [];
  let bytes = 2;
  for (const payload of payloads) {
    const size = Buffer.byteLength(JSON.stringify(payload)) + 1;
    if (current.length > 0 && bytes + size > MAX_BATCH_BYTES) {
      out.push(current);
      current = [];
      bytes = 2;
    }
    current.push(payload);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** The payloads of one message: a batch from an Announcer, or a single payload (a database trigger's). */
export function payloadsOf(message: unknown): unknown[] {
  return Array.isArray(message) ? message : [message];
}

/** Per database handle, the process's announcer (one owner of the batch, whoever writes through `db`). */
const announcers = new WeakMap<Sequelize, Announcer>();

/** Makes `bus` the one the process announces through, for every writer using `db`. */
export function announceThrough(db: Sequelize, bus: MessageBus, logger?: Logger): Announcer {
  const announcer = new Announcer(bus, logger);
  announcers.set(db, announcer);
  return announcer;
}

/**
 * The process's announcer for writers using `db`: the one `announceThrough` set, else one that
 * sends through the database's pool (Postgres NOTIFY, after commit, outside any transaction).
 */
export function announcerOf(db: Sequelize): Announcer {
  let announcer = announcers.get(db);
  if (!announcer) {
    announcer = new Announcer({ publish: (channel, payload) => EventBus.publish(db, channel, payload) });
    announcers.set(db, announcer);
  }
  return announcer;
}

/**
 * The process's one bus of events for this configuration: Postgres LISTEN/NOTIFY, or Redis
 * Streams when MUSE_EVENT_BUS is `redis` (MUSE_REDIS_URL), which then also listens on Postgres
 * (see `DatabaseListeningBus`). Loaded lazily: Postgres-only processes never load the Redis client.
 */
export async function createMessageBus(
  config: { MUSE_EVENT_BUS: 'postgres' | 'redis'; MUSE_REDIS_URL?: string | undefined },
  databaseUrl: string,
  logger: Logger,
): Promise<MessageBus> {
  const postgres = new EventBus(databaseUrl, logger);
  if (config.MUSE_EVENT_BUS !== 'redis') return postgres;
  if (!config.MUSE_REDIS_URL) throw new Error('MUSE_EVENT_BUS=redis needs MUSE_REDIS_URL');
  const { RedisStreamsBus } = await import('./redis-bus.ts');
  return new DatabaseListeningBus(new RedisStreamsBus(config.MUSE_REDIS_URL, logger), postgres);
}

/**
 * A bus other than Postgres that also hears what is announced through the database: the NOTIFYs
 * of writers in a process that announces through the database's pool (one without a bus of its
 * own, as `muse-server admin`). Publishes go through `bus`; a subscription listens on both.
 */
export class DatabaseListeningBus implements MessageBus {
  private readonly bus: MessageBus;
  private readonly database: MessageBus;

  constructor(bus: MessageBus, database: MessageBus) {
    this.bus = bus;
    this.database = database;
  }

  publish(channel: string, payload: unknown): Promise<void> {
    return this.bus.publish(channel, payload);
  }

  async subscribe(
    channel: string,
    handler: EventHandler,
    resumed?: () => void,
  ): Promise<() => Promise<void>> {
    const outcomes = await Promise.allSettled(
      [this.bus, this.database].map((each) => each.subscribe(channel, handler, resumed)),
    );
    const stops = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      // Half a subscription would hear only one source: none, and the caller tries again.
      await Promise.all(stops.map((stop) => stop()));
      throw failed.reason;
    }
    return async () => {
      await Promise.all(stops.map((stop) => stop()));
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.bus.close(), this.database.close()]);
  }
}
