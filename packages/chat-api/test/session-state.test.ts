import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { documentedRegisterKeys, expectZulipSchema } from './zulip-schema.ts';

/** What zulip-terminal 0.7.0 asks `/register` for before it draws anything. */
const ZULIP_TERM_FETCH = [
  'realm',
  'presence',
  'subscription',
  'message',
  'starred_messages',
  'update_message_flags',
  'muted_topics',
  'realm_user',
  'realm_user_groups',
  'update_global_notifications',
  'update_display_settings',
  'user_settings',
  'realm_emoji',
  'zulip_version',
];

describe('the initial state a real client needs (issue 26, item 1)', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    alice = await makeUser(stack, { name: 'Alice' });
    bob = await makeUser(stack, { name: 'Bob' });
    carol = await makeUser(stack, { name: 'Carol' });
  });
  afterAll(() => stack.stop());

  it("answers every key Zulip documents for zulip-terminal's fetch_event_types, in Zulip's schema", async () => {
    const { status, body } = await call(url(), 'POST', '/register', alice, {
      fetch_event_types: ZULIP_TERM_FETCH,
      event_types: ZULIP_TERM_FETCH,
      client_gravatar: true,
      apply_markdown: true,
      include_subscribers: true,
    });
    expect(status).toBe(200);
    const missing = ZULIP_TERM_FETCH.flatMap((type) =>
      documentedRegisterKeys(type).filter((key) => !(key in body)),
    );
    expect(missing).toEqual([]);
    // Keys the reference documents with wording of their own.
    for (const key of [
      'unread_msgs',
      'realm_can_delete_own_message_group',
      'server_presence_ping_interval_seconds',
    ])
      expect(body).toHaveProperty(key);
    expect(body).toMatchObject({
      presences: expect.any(Object),
      muted_topics: [],
      realm_emoji: {},
      starred_messages: [],
      twenty_four_hour_time: false,
      pm_content_in_desktop_notifications: true,
      user_settings: expect.objectContaining({ send_private_typing_notifications: true }),
    });
    expect((body.realm_user_groups as { name: string }[]).map((g) => g.name)).toContain('role:members');
    expectZulipSchema('/register', 'post', body);
  });

  it('realm_url is the address the client reached (its port included) when no external URL is configured', async () => {
    const { body } = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['realm'] });
    expect(body.realm_url).toBe(url());
    const settings = await call(url(), 'GET', '/server_settings', null);
    expect(settings.body.realm_url).toBe(url());
  });

  it('general is a default channel: a new user is subscribed to it', async () => {
    const { body } = await call(url(), 'GET', '/users/me/subscriptions', carol);
    expect((body.subscriptions as { name: string }[]).map((s) => s.name)).toEqual(['general']);
  });

  it('unread_msgs counts the unread messages by channel topic, one-on-one and group conversation', async () => {
    const dave = await makeUser(stack, { name: 'Dave' });
    const send = async (from: TestUser, params: Record<string, unknown>) =>
      (await call(url(), 'POST', '/messages', from, params)).body.id as number;
    const t1 = await send(alice, { type: 'stream', to: 'general', topic: 'lunch', content: 'pizza?' });
    const t2 = await send(bob, { type: 'stream', to: 'general', topic: 'lunch', content: 'yes' });
    const dm = await send(alice, { type: 'direct', to: [dave.id], content: 'hi dave' });
    const group = await send(bob, { type: 'direct', to: [alice.id, dave.id], content: 'all of us' });
    const own = await send(dave, { type: 'stream', to: 'general', topic: 'lunch', content: 'mine' });
    const { body } = await call(url(), 'POST', '/register', dave, {
      fetch_event_types: ['message', 'update_message_flags'],
    });
    const unread = body.unread_msgs as Record<string, unknown>;
    expect(unread).toEqual({
      count: 4,
      streams: [{ stream_id: expect.any(Number), topic: 'lunch', unread_message_ids: [t1, t2] }],
      pms: [{ other_user_id: alice.id, sender_id: alice.id, unread_message_ids: [dm] }],
      huddles: [
        {
          user_ids_string: [alice.id, bob.id, dave.id].sort((a, b) => a - b).join(','),
          unread_message_ids: [group],
        },
      ],
      mentions: [],
      old_unreads_missing: false,
    });
    expect(own).toBeGreaterThan(group);
    expectZulipSchema('/register', 'post', body);
  });

  it('sends no unread_msgs unless both message and update_message_flags are asked for', async () => {
    const { body } = await call(url(), 'POST', '/register', bob, { fetch_event_types: ['message'] });
    expect(body).not.toHaveProperty('unread_msgs');
    expect(body).toHaveProperty('max_message_id');
  });
});
