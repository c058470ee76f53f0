import { Redis } from 'ioredis';
import { dispatchPayload, type EventHandler, type MessageBus } from './bus.ts';
import type { Logger } from './logger.ts';

/** Entries kept per stream: a reader that lost its connection catches up on up to this many. */
const MAX_LENGTH = 10_000;
/** How long one XREAD waits; a channel subscribed meanwhile is read from the next call on. */
const BLOCK_MS = 1000;

/**
 * The bus on Redis Streams, for deployments past one Postgres: every publish is an XADD to the
 * channel's stream (capped), every process reads the streams it subscribed to from the last
 * entry it saw, so a dropped connection loses nothing the cap still holds (unlike NOTIFY or
 * Redis pub/sub). Publishing costs the database nothing.
 */
export class RedisStreamsBus implements MessageBus {
  private readonly writer: Redis;
  private readonly reader: Redis;
  private readonly logger: Logger;
  private readonly handlers = new Map<string, Set<EventHandler>>();
  /** Per subscribed stream, the id of the last entry delivered. */
  private readonly lastIds = new Map<string, string>();
  private reading: Promise<void> | undefined;
  private closed = false;

  constructor(url: string, logger: Logger) {
    this.logger = logger;
    this.writer = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    this.reader = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: null });
    for (const client of [this.writer, this.reader])
      client.on('error', (error: unknown) => this.logger.warn({ err: error }, 'redis bus connection error'));
  }

  async publish(channel: string, payload: unknown): Promise<void> {
    await this.writer.xadd(
      streamKey(channel),
      'MAXLEN',
      '~',
      String(MAX_LENGTH),
      '*',
      'p',
      JSON.stringify(payload),
    );
  }

  async subscribe(channel: string, handler: EventHandler): Promise<() => Promise<void>> {
    const key = streamKey(channel);
    if (!this.lastIds.has(key)) {
      // From the newest entry on: a subscriber hears what is published after it subscribed.
      const newest = await this.writer.xrevrange(key, '+', '-', 'COUNT', 1);
      if (!this.lastIds.has(key)) this.lastIds.set(key, newest[0]?.[0] ?? '0-0');
    }
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    this.reading ??= this.read();
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.lastIds.delete(key);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reader.disconnect();
    await this.reading?.catch(() => {});
    this.writer.disconnect();
  }

  private async read(): Promise<void> {
    for (let failures = 0; !this.closed;) {
      const keys = [...this.lastIds.keys()];
      if (keys.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      try {
        const answer = await this.reader.xread(
          'COUNT',
          1000,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...keys,
          ...keys.map((k) => this.lastIds.get(k)!),
        );
        failures = 0;
        for (const [key, entries] of answer ?? []) {
          for (const [id, fields] of entries) {
            if (this.lastIds.has(key)) this.lastIds.set(key, id);
            dispatchPayload(this.handlers, this.logger, key.slice(STREAM_PREFIX.length), fields[1]);
          }
        }
      } catch (error) {
        if (this.closed) return;
        failures++;
        this.logger.warn({ err: error, failures }, 'redis bus read failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 100 * 2 ** failures)));
      }
    }
  }
}

const STREAM_PREFIX = 'muse:bus:';
const streamKey = (channel: string) => `${STREAM_PREFIX}${channel}`;
