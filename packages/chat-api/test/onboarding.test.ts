import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

// What zulip-terminal 0.7.0 needs at start (.ci/zulip-clients.sh): a first view that is not
// empty, and Zulip's anchor for "newest" (it reads any other value as a position in its list).
describe("a new user's first session (issue 26)", () => {
  let stack: TestStack;
  let creator: TestUser;
  const url = () => stack.chatUrl;

  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    creator = await makeUser(stack, { role: 200, canCreateUsers: true });
  });
  afterAll(() => stack.stop());

  it('a user created through POST /users finds an unread direct message from the Welcome Bot', async () => {
    const created = await call(url(), 'POST', '/users', creator, {
      email: 'newcomer@example.com',
      password: 'secret-pw',
      full_name: 'New Comer',
    });
    expect(created.status).toBe(200);
    const login = await call(url(), 'POST', '/fetch_api_key', null, {
      username: 'newcomer@example.com',
      password: 'secret-pw',
    });
    const newcomer = { email: 'newcomer@example.com', apiKey: login.body.api_key as string };
    const first = await call(url(), 'GET', '/messages', newcomer, {
      anchor: 'first_unread',
      num_before: 30,
      num_after: 10,
    });
    expectZulipSchema('/messages', 'get', first.body);
    const messages = first.body.messages as Record<string, unknown>[];
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ type: 'private', sender_full_name: 'Welcome Bot', flags: [] });
    expect(messages[0]?.content).toContain('welcome to <strong>Org root</strong>');
    expect(first.body.anchor).toBe(messages[0]?.id);
  });

  it('GET /messages answers `newest`, and `first_unread` with nothing unread, with LARGER_THAN_MAX_MESSAGE_ID', async () => {
    const reader = await makeUser(stack);
    await call(url(), 'POST', '/messages', creator, { type: 'direct', to: [reader.id], content: 'read me' });
    await call(url(), 'POST', '/mark_all_as_read', reader);
    for (const params of [
      { anchor: 'newest' },
      { anchor: 'first_unread' },
      { anchor: 0, use_first_unread_anchor: true },
    ]) {
      const reply = await call(url(), 'GET', '/messages', reader, { num_before: 5, num_after: 5, ...params });
      expect(reply.body.anchor, JSON.stringify(params)).toBe(10_000_000_000_000_000);
      expect((reply.body.messages as unknown[]).length).toBe(1);
    }
    const oldest = await call(url(), 'GET', '/messages', reader, {
      anchor: 'oldest',
      num_before: 0,
      num_after: 5,
    });
    expect(oldest.body.anchor).toBe(0);
  });
});
