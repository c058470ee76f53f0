import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { call, makeOrganization, makeUser, type TestUser } from './support.ts';

const main = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));

/** A second, real `muse-server chat-api` process on the same database. */
async function startSecondProcess(stack: TestStack): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [main, 'chat-api'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      MUSE_HOST: '127.0.0.1',
      MUSE_CHAT_PORT: '0',
      MUSE_CHAT_METRICS_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`second process did not start: ${output}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`second process exited with ${code}: ${output}`)));
  });
  return { child, url };
}

describe('two API processes on one database', () => {
  let stack: TestStack;
  let second: { child: ChildProcess; url: string };
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '10000' });
    await makeOrganization(stack);
    user = await makeUser(stack);
    second = await startSecondProcess(stack);
  });
  afterAll(async () => {
    second?.child.kill('SIGTERM');
    await new Promise((resolve) => second?.child.once('exit', resolve));
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
