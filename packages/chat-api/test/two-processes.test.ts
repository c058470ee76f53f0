import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../../../test/support/processes.ts';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { call, makeOrganization, makeUser, type TestUser } from './support.ts';

describe('two API processes on one database', () => {
  let stack: TestStack;
  let second: ServerProcess & { url: string };
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '10000' });
    await makeOrganization(stack);
    user = await makeUser(stack);
    const started = await startServerProcess(stack, 'chat-api');
    second = { ...started, url: started.ready[1]! };
  });
  afterAll(async () => {
    await second?.stop();
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
      // Delivered by the notification, well before the 10 s heartbeat.
      expect(Date.now() - started).toBeLessThan(5000);
    });
  }
});
