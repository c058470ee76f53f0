import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';

/** Long, so a loaded machine's delays never look like a heartbeat. */
const HEARTBEAT_MS = 90_000;

/** A second, real `muse-server chat-api` process on the same database. */
async function startSecondProcess(stack: TestStack): Promise<{ server: MuseProcess; url: string }> {
  const server = startMuseServer(['chat-api'], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: stack.database.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    MUSE_HOST: '127.0.0.1',
    MUSE_CHAT_PORT: '0',
    MUSE_CHAT_HEARTBEAT_MS: String(HEARTBEAT_MS),
  });
  const [, url] = await server.waitForOutput(/"url":"(http:\/\/[^"]+)"/);
  return { server, url: url! };
}

describe('two API processes on one database', () => {
  let stack: TestStack;
  let second: { server: MuseProcess; url: string };
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    await makeOrganization(stack);
    user = await makeUser(stack);
    second = await startSecondProcess(stack);
  });
  afterAll(async () => {
    await second?.server.stop();
    await stack.stop();
  });

  for (const [registerOn, produceOn] of [
    ['second', 'first'],
    ['first', 'second'],
  ] as const) {
    it(`a queue registered on the ${registerOn} process receives an event produced on the ${produceOn}`, async () => {
      const urlOf = (which: 'first' | 'second') => (which === 'first' ? stack.chatUrl : second.url);
      const registered = await call(urlOf(registerOn), 'POST', '/register', user, {
        event_types: ['alert_words'],
      });
      const queueId = registered.body.queue_id as string;
      const started = Date.now();
      const waiting = call(urlOf(registerOn), 'GET', '/events', user, {
        queue_id: queueId,
        last_event_id: -1,
      });
      await new Promise((r) => setTimeout(r, 200));
      await call(urlOf(produceOn), 'POST', '/users/me/alert_words', user, {
        alert_words: [`from-${produceOn}`],
      });
      const { body } = await waiting;
      expect(body.events).toEqual([
        { id: 0, type: 'alert_words', alert_words: expect.arrayContaining([`from-${produceOn}`]) },
      ]);
      // Delivered by the notification, not by the heartbeat (which would take HEARTBEAT_MS).
      expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS / 2);
    });
  }
});
