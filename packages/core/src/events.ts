import pg from 'pg';
import type { Sequelize, Transaction } from 'sequelize';
import type { Logger } from './logger.ts';
import { dispatchPayload, type EventHandler, type MessageBus } from './bus.ts';

/**
 * Cross-process events over Postgres LISTEN/NOTIFY. Any API process or worker can publish;
 * every process listening on the channel receives it. Publishing inside a transaction
 * delivers the event only if the transaction commits. Payloads stay small (Postgres caps
 * them at 8000 bytes): send ids and states, not documents.
 */
export class EventBus implements MessageBus {
  private readonly url: string;
  private readonly logger: Logger;
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
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
    await this.inTurn((client) =>
      client.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(payload)]),
    );
  }

  /** Registers a handler; returns a function that removes it (and stops listening when it was the last). */
  async subscribe(channel: string, handler: EventHandler): Promise<() => Promise<void>> {
    if (!this.handlers.has(channel)) {
      // The channel counts as listened to only once LISTEN succeeded, so a failure here is retried next time.
      await this.inTurn((client) => client.query(`LISTEN ${quoteIdentifier(channel)}`));
      if (!this.handlers.has(channel)) this.handlers.set(channel, new Set());
    }
    this.handlers.get(channel)!.add(handler);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      if (this.client)
        await this.inTurn((client) => client.query(`UNLISTEN ${quoteIdentifier(channel)}`)).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }

  /**
   * Runs a query on the connection once the previous one has finished: publishes, LISTENs and
   * UNLISTENs come from independent callers, and pg (from version 9) refuses a query sent while
   * another runs on the same client.
   */
  private inTurn<T>(query: (client: pg.Client) => Promise<T>): Promise<T> {
    const turn = this.lastQuery.then(async () => query(await this.connect()));
    this.lastQuery = turn.catch(() => {});
    return turn;
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) =>
      dispatchPayload(this.handlers, this.logger, message.channel, message.payload),
    );
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'event bus connection lost; reconnecting');
      this.client = undefined;
      void this.reconnect();
    });
    await client.connect();
    this.client = client;
    return client;
  }

  /** Re-listens to every channel after a lost connection; events sent meanwhile are lost, as with any NOTIFY. */
  private async reconnect(): Promise<void> {
    for (let attempt = 1; !this.closed; attempt++) {
      try {
        for (const channel of this.handlers.keys()) {
          await this.inTurn((client) => client.query(`LISTEN ${quoteIdentifier(channel)}`));
        }
        return;
      } catch (error) {
        this.logger.warn({ err: error, attempt }, 'event bus reconnect failed');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 200 * 2 ** attempt)));
      }
    }
  }
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

  async subscribe(channel: string, handler: EventHandler): Promise<() => Promise<void>> {
    const outcomes = await Promise.allSettled(
      [this.bus, this.database].map((each) => each.subscribe(channel, handler)),
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
