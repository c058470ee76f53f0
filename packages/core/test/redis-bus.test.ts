import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@muse/core';
import { RedisStreamsBus } from '../src/redis-bus.ts';
import { startRedis } from '@muse/test-support/redis';

const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

describe('RedisStreamsBus (a real redis-server)', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('delivers what another process publishes after it subscribed, in order, and nothing older', async () => {
    const publisher = new RedisStreamsBus(redis.url, logger);
    const subscriber = new RedisStreamsBus(redis.url, logger);
    await publisher.publish('orders', { n: 0 }); // before the subscription: not delivered
    const seen: unknown[] = [];
    await subscriber.subscribe('orders', (payload) => seen.push(payload));
    for (const n of [1, 2, 3]) await publisher.publish('orders', { n });
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(3);
    expect(seen).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await Promise.all([publisher.close(), subscriber.close()]);
  });

  it('catches up on what was published while its connection was down', async () => {
    const publisher = new RedisStreamsBus(redis.url, logger);
    const subscriber = new RedisStreamsBus(redis.url, logger);
    const seen: unknown[] = [];
    await subscriber.subscribe('gaps', (payload) => seen.push(payload));
    await publisher.publish('gaps', 'before');
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['before']);
    // Every client connection dropped by the server; the reader reconnects and reads on from its last id.
    const { Redis } = await import('ioredis');
    const admin = new Redis(redis.url);
    await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await publisher.publish('gaps', 'during');
    await expect.poll(() => seen, { timeout: 15_000 }).toEqual(['before', 'during']);
    admin.disconnect();
    await Promise.all([publisher.close(), subscriber.close()]);
  });
});
