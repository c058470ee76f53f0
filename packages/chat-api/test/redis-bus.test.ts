import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';
import { startRedis } from '@muse/test-support/redis';
import { call, makeOrganization, makeUser, waitUntil, type TestUser } from '@muse/test-support/chat';

/** Long, so only a wake-up can answer a waiting poll within the test. */
const HEARTBEAT_MS = 600_000;

/**
 * MUSE_EVENT_BUS=redis: two real `muse-server chat-api` processes on one database wake each
 * other's polls through Redis Streams (a real redis-server), and hear what a process without the
 * bus announces through Postgres NOTIFY (the test's own stack runs on the Postgres bus).
 */
describe('chat wake-ups over Redis Streams', () => {
  let stack: TestStack;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const servers: { server: MuseProcess; url: string }[] = [];
  let user: TestUser;
  beforeAll(async () => {
    redis = await startRedis();
    stack = await startTestStack();
    await makeOrganization(stack);
    user = await makeUser(stack);
    for (let i = 0; i < 2; i++) {
      const server = startMuseServer(['chat-api'], {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: stack.database.url,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        MUSE_HOST: '127.0.0.1',
        MUSE_CHAT_PORT: '0',
        MUSE_CHAT_HEARTBEAT_MS: String(HEARTBEAT_MS),
        MUSE_EVENT_BUS: 'redis',
        MUSE_REDIS_URL: redis.url,
      });
      const [, url] = await server.waitForOutput(/"url":"(http:\/\/[^"]+)"/);
      servers.push({ server, url: url! });
    }
  });
  afterAll(async () => {
    for (const { server } of servers) await server.stop();
    await stack?.stop();
    await redis?.stop();
  });

  it('a poll waiting on one process is answered when the other commits an event', async () => {
    const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const registered = await call(first.url, 'POST', '/register', user, { event_types: ['alert_words'] });
    const waiting = call(first.url, 'GET', '/events', user, {
      queue_id: registered.body.queue_id as string,
      last_event_id: -1,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(
      (await call(second.url, 'POST', '/users/me/alert_words', user, { alert_words: ['redis'] })).status,
    ).toBe(200);
    const { body } = await waiting;
    expect(body.events).toEqual([{ id: 0, type: 'alert_words', alert_words: ['redis'] }]);
  });

  it('a poll waiting on a Redis process is answered when a process announcing through Postgres commits', async () => {
    const [first] = servers as [(typeof servers)[0]];
    const someone = await makeUser(stack);
    const registered = await call(first.url, 'POST', '/register', someone, { event_types: ['alert_words'] });
    const queueId = registered.body.queue_id as string;
    const lastPolled = async () => {
      const [row] = await stack.database.db.query<{ at: Date }>(
        'SELECT last_polled_at AS at FROM chat.event_queues WHERE id = :queueId',
        { replacements: { queueId }, type: QueryTypes.SELECT },
      );
      return row!.at.getTime();
    };
    const registeredAt = await lastPolled();
    const waiting = call(first.url, 'GET', '/events', someone, { queue_id: queueId, last_event_id: -1 });
    // The poll listens before it marks the queue polled (lib/events/reader.ts getEvents).
    await waitUntil(async () => (await lastPolled()) > registeredAt, 'the poll to wait');
    const written = await call(stack.chatUrl, 'POST', '/users/me/alert_words', someone, {
      alert_words: ['postgres'],
    });
    expect(written.status).toBe(200);
    const { body } = await waiting;
    expect(body.events).toEqual([{ id: 0, type: 'alert_words', alert_words: ['postgres'] }]);
  });
});
