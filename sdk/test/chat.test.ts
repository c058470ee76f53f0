import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { until } from './support.ts';
import { ZulipError, createChatClient, type ChatClient, type ChatEvent } from '../src/index.ts';

describe('@muse/sdk chat client against the real stack', () => {
  let stack: TestStack;
  let aliceUser: TestUser;
  let bobUser: TestUser;
  let alice: ChatClient;
  let bob: ChatClient;

  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '500' });
    await makeOrganization(stack);
    aliceUser = await makeUser(stack);
    bobUser = await makeUser(stack);
    alice = createChatClient({ baseUrl: stack.chatUrl, email: aliceUser.email, apiKey: aliceUser.apiKey });
    bob = createChatClient({ baseUrl: stack.chatUrl, email: bobUser.email, apiKey: bobUser.apiKey });
  });
  afterAll(() => stack?.stop());

  it('subscribes with Basic auth and a form body whose list is sent as JSON', async () => {
    const { data } = await alice.POST('/api/v1/users/me/subscriptions', {
      body: { subscriptions: [{ name: 'sdk', description: 'SDK tests' }] },
    });
    expect(data).toMatchObject({ result: 'success', subscribed: { [aliceUser.id]: ['sdk'] } });
    await bob.POST('/api/v1/users/me/subscriptions', {
      body: { subscriptions: [{ name: 'sdk' }] },
    });
    const { data: list } = await alice.GET('/api/v1/users/me/subscriptions');
    expect((list.subscriptions as { name: string }[]).map((s) => s.name)).toContain('sdk');
  });

  it('streams events, re-registers after a deleted queue, and deletes its queue when the loop ends', async () => {
    const queues: string[] = [];
    const events = alice.events({
      event_types: ['message'],
      onRegister: (state) => queues.push(state.queue_id),
    });
    const send = (content: string) =>
      bob.POST('/api/v1/messages', { body: { type: 'stream', to: 'sdk', topic: 'events', content } });

    const first = events.next();
    await until(() => queues.length === 1);
    await send('before');
    const before = (await first).value as ChatEvent;
    expect(before).toMatchObject({
      type: 'message',
      message: { content: expect.stringContaining('before') },
    });

    // The server forgets the queue while the loop is suspended: the next poll is BAD_EVENT_QUEUE_ID.
    await alice.DELETE('/api/v1/events', { params: { query: { queue_id: queues[0]! } } });
    const second = events.next();
    await until(() => queues.length === 2);
    await send('after');
    const after = (await second).value as ChatEvent;
    expect(after).toMatchObject({ type: 'message', message: { content: expect.stringContaining('after') } });

    await events.return();
    const gone = await alice
      .GET('/api/v1/events', { params: { query: { queue_id: queues[1]!, dont_block: true } } })
      .catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(ZulipError);
    expect(gone).toMatchObject({ status: 400, code: 'BAD_EVENT_QUEUE_ID', fields: { queue_id: queues[1] } });
  });

  it('ends the loop on abort and still deletes the queue', async () => {
    const controller = new AbortController();
    const queues: string[] = [];
    const loop = (async () => {
      for await (const _event of alice.events({
        event_types: ['message'],
        signal: controller.signal,
        onRegister: (state) => queues.push(state.queue_id),
      }));
    })();
    await until(() => queues.length === 1);
    controller.abort();
    await expect(loop).rejects.toMatchObject({ name: 'AbortError' });
    const gone = await alice
      .GET('/api/v1/events', { params: { query: { queue_id: queues[0]!, dont_block: true } } })
      .catch((error: unknown) => error);
    expect(gone).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });
  });

  it('answers ZulipError with the extra fields of the error', async () => {
    const error = await alice
      .POST('/api/v1/messages', { body: { type: 'stream', to: '999999', topic: 't', content: 'x' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ZulipError);
    expect(error).toMatchObject({
      status: 400,
      code: 'STREAM_DOES_NOT_EXIST',
      fields: { stream_id: 999999 },
    });
    const unauthorized = createChatClient({
      baseUrl: stack.chatUrl,
      email: aliceUser.email,
      apiKey: 'x'.repeat(32),
    });
    await expect(unauthorized.GET('/api/v1/users/me/subscriptions')).rejects.toMatchObject({ status: 401 });
  });
});
