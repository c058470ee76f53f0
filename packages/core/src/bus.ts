/*
 * The contract every bus implements (Postgres in events.ts, Redis Streams in redis-bus.ts) and the
 * one delivery rule they share. Kept apart so an implementation imports the contract, not another
 * implementation (no import circle with the factory in events.ts).
 */
import type { Logger } from './logger.ts';

export type EventHandler = (payload: unknown) => void;

/**
 * What a process needs to hear and tell other processes: publish after commit, subscribe to a
 * channel. Two implementations: Postgres LISTEN/NOTIFY (`EventBus`, the default, nothing more to
 * run) and Redis Streams (`RedisStreamsBus`), chosen by MUSE_EVENT_BUS.
 */
export interface MessageBus {
  publish(channel: string, payload: unknown): Promise<void>;
  /**
   * `resumed` is called when the bus listens again after its connection was lost or led to a
   * server that cannot write (a failover): what was published in between never arrives, so the
   * subscriber reads what it may have missed from the tables.
   */
  subscribe(channel: string, handler: EventHandler, resumed?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
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
