import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, waitForEvents, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

describe('channels and topics, topic visibility, settings, presence and typing (issue 26, items 4-6)', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  let guest: TestUser;
  let general: number;
  const url = () => stack.chatUrl;
  const eventsOf = (user: TestUser, queue: string, type: string, n = 1) =>
    waitForEvents(url(), user, queue, (events) => events.filter((e) => e.type === type).length >= n).then(
      (events) => events.filter((e) => e.type === type),
    );
  const register = async (user: TestUser, eventTypes: string[]) =>
    (await call(url(), 'POST', '/register', user, { event_types: eventTypes })).body.queue_id as string;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    alice = await makeUser(stack, { name: 'Alice Channels' });
    bob = await makeUser(stack, { name: 'Bob Channels' });
    guest = await makeUser(stack, { name: 'Guest Channels', role: 600 });
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'secret' }],
      invite_only: true,
    });
    const streams = await call(url(), 'GET', '/streams', alice);
    general = (streams.body.streams as { name: string; stream_id: number }[]).find(
      (s) => s.name === 'general',
    )?.stream_id as number;
  });
  afterAll(() => stack.stop());

  it('GET /streams lists what the caller may see; GET /streams/{id} and /get_stream_id find one', async () => {
    const mine = await call(url(), 'GET', '/streams', alice);
    expectZulipSchema('/streams', 'get', mine.body);
    expect((mine.body.streams as { name: string }[]).map((s) => s.name)).toEqual(['general', 'secret']);
    expect(mine.body.streams).toContainEqual(expect.objectContaining({ name: 'general', is_default: true }));
    const bobs = await call(url(), 'GET', '/streams', bob);
    expect((bobs.body.streams as { name: string }[]).map((s) => s.name)).toEqual(['general']);
    expect((await call(url(), 'GET', '/streams', bob, { include_all_active: true })).status).toBe(400);
    const one = await call(url(), 'GET', `/streams/${general}`, bob);
    expectZulipSchema('/streams/{stream_id}', 'get', one.body);
    expect(one.body.stream).toMatchObject({ stream_id: general, name: 'general' });
    const secret = (mine.body.streams as { name: string; stream_id: number }[])[1]?.stream_id;
    expect((await call(url(), 'GET', `/streams/${secret}`, bob)).body.msg).toBe('Invalid channel ID');
    const id = await call(url(), 'GET', '/get_stream_id', bob, { stream: 'General' });
    expectZulipSchema('/get_stream_id', 'get', id.body);
    expect(id.body.stream_id).toBe(general);
    expect((await call(url(), 'GET', '/get_stream_id', bob, { stream: 'secret' })).status).toBe(400);
  });

  it('GET /users/me/{stream_id}/topics lists topics newest first with their newest message', async () => {
    const send = async (topic: string) =>
      (await call(url(), 'POST', '/messages', alice, { type: 'stream', to: 'general', topic, content: 'x' }))
        .body.id as number;
    await send('older');
    const a = await send('newer');
    const b = await send('older');
    const { body } = await call(url(), 'GET', `/users/me/${general}/topics`, bob);
    expectZulipSchema('/users/me/{stream_id}/topics', 'get', body);
    expect(body.topics).toEqual([
      { name: 'older', max_id: b },
      { name: 'newer', max_id: a },
    ]);
  });

  it('topic visibility: POST /user_topics and the legacy muted_topics endpoint, with events and state', async () => {
    const queue = await register(bob, ['user_topic', 'muted_topics']);
    const muted = await call(url(), 'POST', '/user_topics', bob, {
      stream_id: general,
      topic: 'older',
      visibility_policy: 1,
    });
    expect(muted.status).toBe(200);
    expectZulipSchema('/user_topics', 'post', muted.body);
    const events = await eventsOf(bob, queue, 'muted_topics');
    expect(events[0]?.muted_topics).toEqual([['general', 'older', expect.any(Number)]]);
    const state = await call(url(), 'POST', '/register', bob, {
      fetch_event_types: ['user_topic', 'muted_topics'],
    });
    expect(state.body.user_topics).toEqual([
      { stream_id: general, topic_name: 'older', visibility_policy: 1, last_updated: expect.any(Number) },
    ]);
    const legacy = await call(url(), 'PATCH', '/users/me/subscriptions/muted_topics', bob, {
      stream: 'general',
      topic: 'older',
      op: 'remove',
    });
    expect(legacy.status).toBe(200);
    expectZulipSchema('/users/me/subscriptions/muted_topics', 'patch', legacy.body);
    const again = await call(url(), 'PATCH', '/users/me/subscriptions/muted_topics', bob, {
      stream_id: general,
      topic: 'older',
      op: 'remove',
    });
    expect(again.body.msg).toBe('Topic is not muted');
  });

  it('an unknown endpoint is 404, never a misrouted 400', async () => {
    // Plain requests: the served document rightly describes no such path.
    const auth = `Basic ${Buffer.from(`${bob.email}:${bob.apiKey}`).toString('base64')}`;
    for (const [method, path] of [
      ['PATCH', '/users/me/subscriptions/no_such_thing'],
      ['GET', '/messages/latest'],
    ] as const) {
      const reply = await fetch(`${url()}/api/v1${path}`, { method, headers: { authorization: auth } });
      expect(reply.status).toBe(404);
      expect(await reply.json()).toMatchObject({
        result: 'error',
        msg: expect.stringMatching(/^Unknown endpoint/),
      });
    }
  });

  it('PATCH /settings changes a setting, announces it, and /register reports it', async () => {
    const queue = await register(bob, ['user_settings', 'update_display_settings']);
    const changed = await call(url(), 'PATCH', '/settings', bob, {
      twenty_four_hour_time: true,
      emojiset: 'text',
    });
    expect(changed.status).toBe(200);
    expectZulipSchema('/settings', 'patch', changed.body);
    const events = await eventsOf(bob, queue, 'user_settings', 2);
    expect(events.map((e) => [e.property, e.value])).toEqual([
      ['twenty_four_hour_time', true],
      ['emojiset', 'text'],
    ]);
    const state = await call(url(), 'POST', '/register', bob, {
      fetch_event_types: ['user_settings', 'update_display_settings'],
    });
    expect(state.body).toMatchObject({
      twenty_four_hour_time: true,
      user_settings: expect.objectContaining({ emojiset: 'text' }),
    });
    expect((await call(url(), 'PATCH', '/settings', bob, { emojiset: 'comic' })).status).toBe(400);
    const emoji = await call(url(), 'GET', '/realm/emoji', bob);
    expectZulipSchema('/realm/emoji', 'get', emoji.body);
  });

  it('presence: reports are recorded, coming online is announced, last_update_id returns only changes', async () => {
    const queue = await register(alice, ['presence']);
    const first = await call(url(), 'POST', '/users/me/presence', bob, {
      status: 'active',
      new_user_input: true,
    });
    expect(first.status).toBe(200);
    expectZulipSchema('/users/me/presence', 'post', first.body);
    expect(first.body.presences).toHaveProperty(bob.email);
    const [event] = await eventsOf(alice, queue, 'presence');
    expect(event).toMatchObject({ user_id: bob.id, presence: { website: { status: 'active' } } });
    const slim = await call(url(), 'POST', '/users/me/presence', alice, {
      status: 'idle',
      last_update_id: -1,
    });
    expectZulipSchema('/users/me/presence', 'post', slim.body);
    expect(slim.body.presences).toHaveProperty(String(bob.id));
    const since = slim.body.presence_last_update_id as number;
    // Bob pinging again while online changes nothing others see.
    await call(url(), 'POST', '/users/me/presence', bob, { status: 'active' });
    const none = await call(url(), 'POST', '/users/me/presence', alice, {
      status: 'idle',
      last_update_id: since,
    });
    expect(none.body.presences).toEqual({});
    const realm = await call(url(), 'GET', '/realm/presence', alice);
    expectZulipSchema('/realm/presence', 'get', realm.body);
    const one = await call(url(), 'GET', `/users/${bob.id}/presence`, alice);
    expectZulipSchema('/users/{user_id_or_email}/presence', 'get', one.body);
    const state = await call(url(), 'POST', '/register', alice, {
      fetch_event_types: ['presence'],
      slim_presence: true,
    });
    expect(state.body.presences).toHaveProperty(String(bob.id));
  });

  it('typing: direct and channel typing events reach the others in the conversation', async () => {
    const queue = await register(bob, ['typing']);
    const direct = await call(url(), 'POST', '/typing', alice, { op: 'start', to: [bob.id] });
    expect(direct.status).toBe(200);
    expectZulipSchema('/typing', 'post', direct.body);
    await call(url(), 'POST', '/typing', alice, {
      type: 'stream',
      op: 'stop',
      stream_id: general,
      topic: 'older',
    });
    const events = await eventsOf(bob, queue, 'typing', 2);
    expect(events[0]).toMatchObject({ op: 'start', message_type: 'direct', sender: { user_id: alice.id } });
    expect(events[1]).toMatchObject({
      op: 'stop',
      message_type: 'stream',
      stream_id: general,
      topic: 'older',
    });
    expect((await call(url(), 'POST', '/typing', alice, { op: 'start' })).body.msg).toBe(
      "Missing 'to' argument",
    );
    expect((await call(url(), 'GET', '/streams', guest)).body.streams).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'general' })]),
    );
  });
});
