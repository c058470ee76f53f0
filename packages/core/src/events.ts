import pg from 'pg';
import type { Sequelize, Transaction } from 'sequelize';
import type { Logger } from './logger.ts';

export type EventHandler = (payload: unknown) => void;

/**
 * What a process needs to hear and tell other processes: publish after commit, subscribe to a
 * channel. Two implementations: Postgres LISTEN/NOTIFY (`EventBus`, the default, nothing more to
 * run) and Redis Streams (`RedisStreamsBus`), chosen by MUSE_EVENT_BUS.
 */
export interface MessageBus {
  publish(channel: string, payload: unknown): Promise<void>;
  subscribe(channel: string, handler: EventHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

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
    const client = await this.connect();
    await client.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(payload)]);
  }

  /** Registers a handler; returns a function that removes it (and stops listening when it was the last). */
  async subscribe(channel: string, handler: EventHandler): Promise<() => Promise<void>> {
    if (!this.handlers.has(channel)) {
      // The channel counts as listened to only once LISTEN succeeded, so a failure here is retried next time.
      const client = await this.connect();
      await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      if (!this.handlers.has(channel)) this.handlers.set(channel, new Set());
    }
    this.handlers.get(channel)!.add(handler);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      if (this.client) await this.client.query(`UNLISTEN ${quoteIdentifier(channel)}`).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    await this.client?.end().catch(() => {});
    this.client = undefined;
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
        const client = await this.connect();
        for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdentifier(channel)}`);
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

/**
 * The bus of the chat wake-ups for this configuration: the given Postgres bus, or Redis Streams
 * when MUSE_EVENT_BUS is `redis` (MUSE_REDIS_URL). Loaded lazily: Postgres-only processes never
 * load the Redis client.
 */
export async function createMessageBus(
  config: { MUSE_EVENT_BUS: 'postgres' | 'redis'; MUSE_REDIS_URL?: string | undefined },
  postgres: EventBus,
  logger: Logger,
): Promise<MessageBus> {
  if (config.MUSE_EVENT_BUS !== 'redis') return postgres;
  if (!config.MUSE_REDIS_URL) throw new Error('MUSE_EVENT_BUS=redis needs MUSE_REDIS_URL');
  const { RedisStreamsBus } = await import('./redis-bus.ts');
  return new RedisStreamsBus(config.MUSE_REDIS_URL, logger);
}

/**
 * Hands a channel's payload (JSON, else the raw string) to its handlers; one failing handler is
 * logged and does not stop the others. Shared by every MessageBus implementation.
 */
export function dispatchPayload(
  handlers: ReadonlyMap<string, Set<EventHandler>>,
  logger: Logger,
  channel: string,
  raw: string | undefined,
): void {
  let payload: unknown = raw;
  try {
    payload = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    // a non-JSON payload is passed through as the raw string
  }
  for (const handler of handlers.get(channel) ?? []) {
    try {
      handler(payload);
    } catch (error) {
      logger.error({ err: error, channel }, 'event handler failed');
    }
  }
}
