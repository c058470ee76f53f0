import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';

/**
 * With a heartbeat far longer than the test timeout, a waiting poll can only answer in time if
 * removing its queue wakes it.
 */
describe('a waiting poll wakes when its queue goes away', () => {
  let stack: TestStack;
  let owner: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '600000', MUSE_CHAT_MAX_QUEUES_PER_USER: '3' });
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

  it('when it is evicted: a user holds at most MUSE_CHAT_MAX_QUEUES_PER_USER queues, the oldest go', async () => {
    const member = await makeUser(stack);
    const { queueId: oldest, reply } = await waitingPoll(member);
    const registered = await Promise.all(
      Array.from({ length: 12 }, () =>
        call(stack.chatUrl, 'POST', '/register', member, { event_types: ['alert_words'] }),
      ),
    );
    expect(registered.map((r) => r.status)).toEqual(registered.map(() => 200));
    expect(await reply).toMatchObject({
      status: 400,
      body: { code: 'BAD_EVENT_QUEUE_ID', queue_id: oldest },
    });
    const polls = await Promise.all(
      registered.map((r) =>
        call(stack.chatUrl, 'GET', '/events', member, {
          queue_id: r.body.queue_id as string,
          last_event_id: -1,
          dont_block: true,
        }),
      ),
    );
    const alive = polls.filter((p) => p.status === 200);
    expect(alive).toHaveLength(3);
    for (const evicted of polls.filter((p) => p.status !== 200))
      expect(evicted).toMatchObject({ status: 400, body: { code: 'BAD_EVENT_QUEUE_ID' } });
    // The newest registration always survives.
    const last = await call(stack.chatUrl, 'POST', '/register', member, { event_types: ['alert_words'] });
    const poll = await call(stack.chatUrl, 'GET', '/events', member, {
      queue_id: last.body.queue_id as string,
      last_event_id: -1,
      dont_block: true,
    });
    expect(poll.status).toBe(200);
  });
});
