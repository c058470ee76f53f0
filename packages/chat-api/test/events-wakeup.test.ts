import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { call, makeOrganization, makeUser, type TestUser } from './support.ts';

/**
 * With a heartbeat far longer than the test timeout, a waiting poll can only answer in time if
 * removing its queue wakes it.
 */
describe('a waiting poll wakes when its queue goes away', () => {
  let stack: TestStack;
  let owner: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '600000' });
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100 });
  });
  afterAll(() => stack.stop());

  async function waitingPoll(user: TestUser) {
    const registered = await call(stack.chatUrl, 'POST', '/register', user, { event_types: ['alert_words'] });
    const queueId = registered.body.queue_id as string;
    const reply = call(stack.chatUrl, 'GET', '/events', user, { queue_id: queueId, last_event_id: -1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { queueId, reply };
  }

  it('when the queue is deleted', async () => {
    const { queueId, reply } = await waitingPoll(owner);
    await call(stack.chatUrl, 'DELETE', '/events', owner, { queue_id: queueId });
    expect(await reply).toMatchObject({
      status: 400,
      body: { code: 'BAD_EVENT_QUEUE_ID', queue_id: queueId },
    });
  });

  it('when its user is deactivated', async () => {
    const member = await makeUser(stack);
    const { queueId, reply } = await waitingPoll(member);
    const deactivated = await call(stack.chatUrl, 'DELETE', `/users/${member.id}`, owner, {});
    expect(deactivated.status).toBe(200);
    expect(await reply).toMatchObject({
      status: 400,
      body: { code: 'BAD_EVENT_QUEUE_ID', queue_id: queueId },
    });
  });
});
