import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { sendEvent } from '../src/domain/lib/events/log.ts';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';
import { transact } from '@muse/core';

type Event = { id: number; type: string; op?: string; [key: string]: unknown };

describe('event queues', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    // Idle time long enough that a busy machine's slow /register never expires a queue before its first poll.
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '400', MUSE_CHAT_QUEUE_IDLE_MS: '6000' });
    await makeOrganization(stack);
    alice = await makeUser(stack, { role: 100 });
    bob = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  async function register(user: TestUser, params: Record<string, unknown> = {}) {
    const reply = await call(url(), 'POST', '/register', user, params);
    expect(reply.status).toBe(200);
    return reply.body as unknown as { queue_id: string; last_event_id: number } & Record<string, unknown>;
  }

  async function poll(
    user: TestUser,
    queueId: string,
    lastEventId: number,
    extra: Record<string, unknown> = {},
  ) {
    const reply = await call(url(), 'GET', '/events', user, {
      queue_id: queueId,
      last_event_id: lastEventId,
      ...extra,
    });
    expect(reply.status).toBe(200);
    expectZulipSchema('/events', 'get', reply.body);
    return reply.body.events as Event[];
  }

  it('POST /register returns a queue and the initial state, in the reference shape', async () => {
    const body = await register(alice);
    expect(body.queue_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.last_event_id).toBe(-1);
    expect(body).toMatchObject({
      zulip_feature_level: 420,
      alert_words: [],
      // New users join the default channel, general.
      subscriptions: [expect.objectContaining({ name: 'general' })],
      user_id: alice.id,
    });
    expect((body.realm_users as { user_id: number }[]).map((u) => u.user_id)).toContain(bob.id);
    expectZulipSchema('/register', 'post', body);
    const partial = await register(alice, { fetch_event_types: ['alert_words'] });
    expect(partial.alert_words).toEqual([]);
    expect(partial.subscriptions).toBeUndefined();
  });

  it('a waiting GET /events returns as soon as an event is produced', async () => {
    const { queue_id } = await register(alice, { event_types: ['alert_words'] });
    const waiting = poll(alice, queue_id, -1);
    await new Promise((r) => setTimeout(r, 100));
    await call(url(), 'POST', '/users/me/alert_words', alice, { alert_words: ['ping'] });
    const events = await waiting;
    expect(events).toEqual([{ id: 0, type: 'alert_words', alert_words: ['ping'] }]);
  });

  it('a change committed while a client registers is in its initial state or in its queue', async () => {
    // A producer that appended its event before the queue existed, and commits only afterwards.
    const { db } = stack.database;
    let commit = () => {};
    const released = new Promise<void>((resolve) => (commit = resolve));
    let appended = () => {};
    const eventAppended = new Promise<void>((resolve) => (appended = resolve));
    const producer = transact(db, async (t) => {
      await db.query(`INSERT INTO chat.alert_words (user_id, word) VALUES (:user, 'racing')`, {
        replacements: { user: alice.id },
        transaction: t,
      });
      await sendEvent(db, t, [alice.id], { type: 'alert_words', alert_words: ['racing'] });
      appended();
      await released;
    });
    await eventAppended;
    const registering = register(alice, { event_types: ['alert_words'] });
    await new Promise((r) => setTimeout(r, 300));
    commit();
    await producer;
    const state = await registering;
    const events = await poll(alice, state.queue_id, state.last_event_id, { dont_block: true });
    const inState = (state.alert_words as string[]).includes('racing');
    const inQueue = events.some((e) => (e.alert_words as string[] | undefined)?.includes('racing'));
    expect(inState || inQueue).toBe(true);
    await call(url(), 'DELETE', '/users/me/alert_words', alice, { alert_words: ['racing'] });
  });

  it('event_types filters what a queue receives; dont_block answers at once', async () => {
    const { queue_id } = await register(bob, { event_types: ['subscription'] });
    await call(url(), 'POST', '/users/me/alert_words', bob, { alert_words: ['ignored'] });
    const none = await poll(bob, queue_id, -1, { dont_block: true });
    expect(none).toEqual([]);
  });

  it('updating is_muted sends two subscription update events (in_home_view and is_muted)', async () => {
    const created = await call(url(), 'POST', '/users/me/subscriptions', bob, {
      subscriptions: [{ name: 'muting' }],
    });
    expect(created.status).toBe(200);
    const { queue_id } = await register(bob, { event_types: ['subscription'] });
    const subs = await call(url(), 'GET', '/users/me/subscriptions', bob);
    const streamId = (subs.body.subscriptions as { stream_id: number }[])[0]?.stream_id;
    await call(url(), 'POST', '/users/me/subscriptions/properties', bob, {
      subscription_data: [{ stream_id: streamId, property: 'is_muted', value: true }],
    });
    const events = await poll(bob, queue_id, -1);
    expect(events).toEqual([
      {
        id: 0,
        type: 'subscription',
        op: 'update',
        stream_id: streamId,
        property: 'in_home_view',
        value: false,
      },
      { id: 1, type: 'subscription', op: 'update', stream_id: streamId, property: 'is_muted', value: true },
    ]);
  });

  it('subscribing sends add to the subscriber and peer_add to others, in the reference shape', async () => {
    const aliceQueue = await register(alice, { event_types: ['subscription'] });
    const bobQueue = await register(bob, { event_types: ['subscription', 'stream'] });
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'newsroom' }],
      principals: [bob.id],
    });
    const bobEvents = await poll(bob, bobQueue.queue_id, -1);
    expect(bobEvents.map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/add']);
    const aliceEvents = await poll(alice, aliceQueue.queue_id, -1);
    expect(aliceEvents).toEqual([
      expect.objectContaining({ type: 'subscription', op: 'peer_add', user_ids: [bob.id] }),
    ]);
    await call(url(), 'DELETE', '/users/me/subscriptions', bob, { subscriptions: ['newsroom'] });
    const removed = await poll(bob, bobQueue.queue_id, bobEvents.at(-1)?.id ?? -1);
    expect(removed).toEqual([expect.objectContaining({ type: 'subscription', op: 'remove' })]);
  });

  it('events acknowledged by last_event_id are not returned again', async () => {
    const { queue_id } = await register(alice, { event_types: ['alert_words'] });
    await call(url(), 'POST', '/users/me/alert_words', alice, { alert_words: ['one'] });
    await call(url(), 'POST', '/users/me/alert_words', alice, { alert_words: ['two'] });
    const first = await poll(alice, queue_id, -1);
    expect(first.map((e) => e.id)).toEqual([0, 1]);
    const rest = await poll(alice, queue_id, 0, { dont_block: true });
    expect(rest.map((e) => e.id)).toEqual([1]);
  });

  it('answers a heartbeat when nothing happens within the heartbeat interval', async () => {
    const { queue_id } = await register(alice, { event_types: ['alert_words'] });
    const started = Date.now();
    const events = await poll(alice, queue_id, -1);
    expect(events).toEqual([{ id: 0, type: 'heartbeat' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  it('DELETE /events removes the queue; an unknown queue is BAD_EVENT_QUEUE_ID with queue_id', async () => {
    const { queue_id } = await register(alice);
    const deleted = await call(url(), 'DELETE', '/events', alice, { queue_id });
    expect(deleted.status).toBe(200);
    expectZulipSchema('/events', 'delete', deleted.body);
    for (const method of ['DELETE', 'GET'] as const) {
      const again = await call(url(), method, '/events', alice, { queue_id });
      expect(again.status).toBe(400);
      expect(again.body).toEqual({
        result: 'error',
        code: 'BAD_EVENT_QUEUE_ID',
        msg: `Bad event queue ID: ${queue_id}`,
        queue_id,
      });
      expectZulipSchema('/events', method.toLowerCase(), again.body, '400');
    }
  });

  it("another user's queue is BAD_EVENT_QUEUE_ID; a missing queue_id is REQUEST_VARIABLE_MISSING", async () => {
    const { queue_id } = await register(alice);
    const other = await call(url(), 'GET', '/events', bob, { queue_id, dont_block: true });
    expect(other.body.code).toBe('BAD_EVENT_QUEUE_ID');
    const missing = await call(url(), 'DELETE', '/events', bob);
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'queue_id' });
  });

  it('a poll waiting on a queue that gets deleted answers BAD_EVENT_QUEUE_ID at once', async () => {
    const { queue_id } = await register(bob, { event_types: ['alert_words'] });
    const waiting = call(url(), 'GET', '/events', bob, { queue_id, last_event_id: -1 });
    await new Promise((r) => setTimeout(r, 100));
    await call(url(), 'DELETE', '/events', bob, { queue_id });
    const { status, body } = await waiting;
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id });
  });

  it('a channel message answers every waiting poll of its subscribers once, the sender with its read flag', async () => {
    const carol = await makeUser(stack);
    for (const user of [alice, bob, carol]) {
      const joined = await call(url(), 'POST', '/users/me/subscriptions', user, {
        subscriptions: [{ name: 'fan-out' }],
      });
      expect(joined.status).toBe(200);
    }
    // Two queues of one user, and a poll each, all woken by the one announcement.
    const queues = await Promise.all(
      [alice, bob, carol, carol].map(async (user) => ({
        user,
        queueId: (await register(user, { event_types: ['message'], apply_markdown: true })).queue_id,
      })),
    );
    // The heartbeat interval is short here: a poll answered with a heartbeat polls again.
    const untilMessage = async (user: TestUser, queueId: string) => {
      for (let last = -1; ;) {
        const events = await poll(user, queueId, last);
        const messages = events.filter((e) => e.type === 'message');
        if (messages.length) return messages;
        last = events.at(-1)?.id ?? last;
      }
    };
    const polls = queues.map(({ user, queueId }) => untilMessage(user, queueId));
    const sent = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'fan-out',
      topic: 'all',
      content: 'to everyone',
    });
    expect(sent.status).toBe(200);
    const answers = await Promise.all(polls);
    answers.forEach((events, i) => {
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'message',
        message: { id: sent.body.id, content: '<p>to everyone</p>' },
        flags: queues[i]!.user === alice ? ['read'] : [],
      });
    });
    // Any integer is a last_event_id, also one past 32 bits.
    expect(await poll(bob, queues[1]!.queueId, 2 ** 40, { dont_block: true })).toEqual([]);
  });

  it('an idle queue expires', async () => {
    const { queue_id } = await register(bob);
    await new Promise((r) => setTimeout(r, 6200));
    const expired = await call(url(), 'GET', '/events', bob, { queue_id, dont_block: true });
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe('BAD_EVENT_QUEUE_ID');
  });
});
