import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverScheduledMessage, scheduledMessageWorkflowId } from '@muse/chat-api';
import { startFakeServer } from '@muse/test-support/fakes/http-fake';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  secondsFromNow,
  waitForEvents,
  waitUntil,
  type TestUser,
} from '@muse/test-support/chat';
import { expectZulipComponent, expectZulipSchema, expectZulipSuccess } from './zulip-schema.ts';

/** Short, so that the tests of the window wait seconds, not the production default's 30. */
const WAKE_EARLY_SECONDS = 5;
/**
 * How far ahead a message is scheduled whose send the test makes fail before its time (a
 * recipient deactivated, a channel left): time for that one request on a busy machine, beside
 * the tests that wait at the same time.
 */
const REFUSAL_LEAD_SECONDS = 8;
/** Temporal's `PendingActivityState` of an activity a worker is running. */
const PENDING_ACTIVITY_STATE_STARTED = 2;

interface Pair {
  sender: TestUser;
  recipient: TestUser;
}

describe('scheduled messages over HTTP, delivered by a real Temporal worker', () => {
  let stack: TestStack;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let general: number;
  const url = () => stack.chatUrl;

  const channelId = async (name: string) => {
    const [row] = await stack.database.db.query<{ id: number }>(
      'SELECT id FROM chat.streams WHERE lower(name) = lower(:name)',
      { replacements: { name }, type: QueryTypes.SELECT },
    );
    return row!.id;
  };
  const messagesWith = async (content: string) =>
    stack.database.db.query<{ id: string; sender_id: number }>(
      'SELECT id, sender_id FROM chat.messages WHERE content = :content',
      { replacements: { content }, type: QueryTypes.SELECT },
    );
  const schedule = (user: TestUser, params: Record<string, unknown>) =>
    call(url(), 'POST', '/scheduled_messages', user, params);
  // Rendered content, as a web client asks for it (Zulip's default queue gets the raw Markdown).
  const register = async (user: TestUser, types: string[]) =>
    (await call(url(), 'POST', '/register', user, { event_types: types, apply_markdown: true })).body
      .queue_id as string;
  const workflowOf = (id: number) =>
    stack.temporal.workflow.getHandle(scheduledMessageWorkflowId(stack.taskQueue, id));
  /** Two new users, for a test whose checks must see no other test's messages. */
  const ownPair = async (): Promise<Pair> => {
    const [sender, recipient] = await Promise.all([makeUser(stack), makeUser(stack)]);
    return { sender: sender!, recipient: recipient! };
  };

  beforeAll(async () => {
    // Workflows hand each message to the worker WAKE_EARLY_SECONDS before its time. The sweep of
    // unstarted outgoing webhooks waits an hour: a bot called here was called by the send itself.
    stack = await startTestStack({
      MUSE_CHAT_HEARTBEAT_MS: '1000',
      MUSE_DELIVERY_WAKE_EARLY_SECONDS: String(WAKE_EARLY_SECONDS),
      MUSE_CHAT_WEBHOOK_SWEEP_MS: '3600000',
    });
    await makeOrganization(stack);
    admin = await makeUser(stack, { role: 200 });
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    carol = await makeUser(stack);
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'plans' }],
      principals: [alice.id, bob.id],
    });
    general = await channelId('plans');
    await stack.startWorker();
  });
  afterAll(() => stack.stop());

  it('creates, lists, registers and announces a scheduled message in every shape of type and to', async () => {
    const queue = await register(alice, ['scheduled_messages']);
    const shapes = [
      { type: 'channel', to: general, topic: 'later' },
      { type: 'stream', to: [general], topic: '(no topic)' },
      { type: 'direct', to: [bob.id, carol.id] },
      { type: 'private', to: bob.id },
    ];
    const ids: number[] = [];
    for (const [i, shape] of shapes.entries()) {
      const created = await schedule(alice, {
        ...shape,
        content: `shape ${i}`,
        scheduled_delivery_timestamp: secondsFromNow(3600 + i),
      });
      expect(created.status).toBe(200);
      expectZulipSchema('/scheduled_messages', 'post', created.body);
      ids.push(created.body.scheduled_message_id as number);
    }
    const listed = await call(url(), 'GET', '/scheduled_messages', alice);
    expectZulipSchema('/scheduled_messages', 'get', listed.body);
    const mine = (listed.body.scheduled_messages as Record<string, unknown>[]).filter((m) =>
      ids.includes(m.scheduled_message_id as number),
    );
    expect(mine).toEqual([
      expect.objectContaining({
        type: 'stream',
        to: general,
        topic: 'later',
        content: 'shape 0',
        failed: false,
      }),
      expect.objectContaining({ type: 'stream', to: general, topic: '', rendered_content: '<p>shape 1</p>' }),
      expect.objectContaining({ type: 'private', to: [bob.id, carol.id], content: 'shape 2' }),
      expect.objectContaining({ type: 'private', to: [bob.id], content: 'shape 3' }),
    ]);
    expect(mine[2]).not.toHaveProperty('topic');
    // Another user's list does not show them.
    const bobs = await call(url(), 'GET', '/scheduled_messages', bob);
    expect(bobs.body.scheduled_messages).toEqual([]);

    const state = await call(url(), 'POST', '/register', alice, {
      fetch_event_types: ['scheduled_messages'],
    });
    expectZulipSchema('/register', 'post', state.body);
    expect(state.body.scheduled_messages).toEqual(listed.body.scheduled_messages);

    const events = await waitForEvents(url(), alice, queue, (seen) => seen.length >= 4);
    const reply = { result: 'success', msg: '', events, queue_id: queue };
    expectZulipSchema('/events', 'get', reply);
    expect(
      events.map((e) => [
        e.op,
        (e.scheduled_messages as { scheduled_message_id: number }[])[0]?.scheduled_message_id,
      ]),
    ).toEqual(ids.map((id) => ['add', id]));
    for (const id of ids) await call(url(), 'DELETE', `/scheduled_messages/${id}`, alice);
  });

  it('answers every documented error over HTTP', async () => {
    const future = secondsFromNow(3600);
    const unknownChannel = await schedule(alice, {
      type: 'channel',
      to: 999_999,
      topic: 't',
      content: 'x',
      scheduled_delivery_timestamp: future,
    });
    expect(unknownChannel.status).toBe(400);
    expect(unknownChannel.body).toMatchObject({
      result: 'error',
      code: 'STREAM_DOES_NOT_EXIST',
      stream_id: 999_999,
    });
    // The reference's 400 is a oneOf whose two branches both admit this error, so it is checked against its own branch.
    expectZulipComponent('NonExistingChannelIdError', unknownChannel.body);

    const unknownUser = await schedule(alice, {
      type: 'direct',
      to: [bob.id, 999_999],
      content: 'x',
      scheduled_delivery_timestamp: future,
    });
    expect(unknownUser.status).toBe(400);
    expect(unknownUser.body).toEqual({ result: 'error', msg: 'Invalid user ID 999999', code: 'BAD_REQUEST' });
    expectZulipComponent('CodedError', unknownUser.body);

    const cases: [Record<string, unknown>, string][] = [
      [
        { type: 'direct', to: [bob.id], content: 'x', scheduled_delivery_timestamp: secondsFromNow(-60) },
        'Scheduled delivery time must be in the future.',
      ],
      [
        { type: 'direct', to: [bob.id], content: '  ', scheduled_delivery_timestamp: future },
        'Message must not be empty',
      ],
      [
        { type: 'direct', to: [bob.id], content: 'x'.repeat(10_001), scheduled_delivery_timestamp: future },
        'Message too long (limit: 10000 characters)',
      ],
      [
        {
          type: 'channel',
          to: general,
          topic: 't'.repeat(61),
          content: 'x',
          scheduled_delivery_timestamp: future,
        },
        'Topic too long (limit: 60 characters)',
      ],
      [
        {
          type: 'channel',
          to: [general, general],
          topic: 't',
          content: 'x',
          scheduled_delivery_timestamp: future,
        },
        'Must specify exactly 1 channel ID for channel messages',
      ],
      [
        { type: 'direct', to: [], content: 'x', scheduled_delivery_timestamp: future },
        'Invalid to: must be a channel ID or a list of user IDs',
      ],
      [
        { type: 'direct', to: '"bob"', content: 'x', scheduled_delivery_timestamp: future },
        'Invalid to: must be a channel ID or a list of user IDs',
      ],
      [
        { type: 'letter', to: [bob.id], content: 'x', scheduled_delivery_timestamp: future },
        'Invalid type: must be one of direct, channel, stream, private',
      ],
      [
        { type: 'direct', to: [bob.id], content: 'x', scheduled_delivery_timestamp: 'soon' },
        'scheduled_delivery_timestamp is not an integer',
      ],
    ];
    for (const [params, msg] of cases) {
      const reply = await schedule(alice, params);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { result: 'error', msg, code: 'BAD_REQUEST' },
      });
    }
    const missing = await schedule(alice, { type: 'direct', to: [bob.id], content: 'x' });
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'scheduled_delivery_timestamp',
    });
    const before = await call(url(), 'GET', '/scheduled_messages', alice);
    expect(before.body.scheduled_messages).toEqual([]); // nothing half-written by the refusals

    // Required topics: an empty topic, "(no topic)" or the empty-topic display name is refused in such a channel.
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'strict' }],
      topics_policy: 'disable_empty_topic',
    });
    const strict = await channelId('strict');
    for (const topic of ['', '(no topic)', 'general chat']) {
      const reply = await schedule(alice, {
        type: 'channel',
        to: strict,
        topic,
        content: 'x',
        scheduled_delivery_timestamp: future,
      });
      expect(reply.body).toMatchObject({
        code: 'BAD_REQUEST',
        msg: 'Sending messages to the general chat is not allowed in this channel.',
      });
    }

    const created = await schedule(alice, {
      type: 'channel',
      to: general,
      topic: 'a',
      content: 'x',
      scheduled_delivery_timestamp: future,
    });
    const id = created.body.scheduled_message_id as number;
    const patch = (user: TestUser, target: number, params: Record<string, unknown>) =>
      call(url(), 'PATCH', `/scheduled_messages/${target}`, user, params);
    const notExisting = { result: 'error', msg: 'Scheduled message does not exist', code: 'BAD_REQUEST' };
    for (const [user, target] of [
      [alice, 999_999],
      [bob, id],
    ] as const) {
      const edited = await patch(user, target, { content: 'y' });
      expect({ status: edited.status, body: edited.body }).toEqual({ status: 404, body: notExisting });
      expectZulipSchema('/scheduled_messages/{scheduled_message_id}', 'patch', edited.body, '404');
      const deleted = await call(url(), 'DELETE', `/scheduled_messages/${target}`, user);
      expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 404, body: notExisting });
      expectZulipSchema('/scheduled_messages/{scheduled_message_id}', 'delete', deleted.body, '404');
    }
    const editChannel = await patch(alice, id, { to: 888_888 });
    expect(editChannel.body).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST', stream_id: 888_888 });
    expectZulipComponent('NonExistingChannelIdError', editChannel.body);
    const editUser = await patch(alice, id, { type: 'direct', to: [999_998] });
    expect(editUser.body).toEqual({ result: 'error', msg: 'Invalid user ID 999998', code: 'BAD_REQUEST' });
    const editCases: [Record<string, unknown>, string][] = [
      [{ type: 'direct' }, 'Recipient required when updating type of scheduled message.'],
      [{}, 'Nothing to change'],
      [
        { scheduled_delivery_timestamp: secondsFromNow(-1) },
        'Scheduled delivery time must be in the future.',
      ],
      [{ content: 'x'.repeat(10_001) }, 'Message too long (limit: 10000 characters)'],
      [
        { to: strict, topic: '(no topic)' },
        'Sending messages to the general chat is not allowed in this channel.',
      ],
    ];
    for (const [params, msg] of editCases) {
      const reply = await patch(alice, id, params);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { result: 'error', msg, code: 'BAD_REQUEST' },
      });
    }
    const direct = await schedule(alice, {
      type: 'direct',
      to: [bob.id],
      content: 'dm',
      scheduled_delivery_timestamp: future,
    });
    const toChannel = await patch(alice, direct.body.scheduled_message_id as number, {
      type: 'channel',
      to: general,
    });
    expect(toChannel.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Topic required when updating scheduled message type to channel.',
    });

    // Valid edits: type and destination change, topic and content; unchanged parts stay.
    const changed = await patch(alice, direct.body.scheduled_message_id as number, {
      type: 'stream',
      to: general,
      topic: 'moved',
    });
    expect(changed.status).toBe(200);
    expectZulipSchema('/scheduled_messages/{scheduled_message_id}', 'patch', changed.body);
    const listed = await call(url(), 'GET', '/scheduled_messages', alice);
    expect(listed.body.scheduled_messages).toContainEqual(
      expect.objectContaining({
        scheduled_message_id: direct.body.scheduled_message_id,
        type: 'stream',
        to: general,
        topic: 'moved',
        content: 'dm',
      }),
    );
    for (const m of listed.body.scheduled_messages as { scheduled_message_id: number }[]) {
      const deleted = await call(url(), 'DELETE', `/scheduled_messages/${m.scheduled_message_id}`, alice);
      expectZulipSuccess(deleted.body);
    }
  });

  it('delivers at the time through the send path: message events, unread state, the scheduled one removed', async () => {
    const bobQueue = await register(bob, ['message']);
    const aliceQueue = await register(alice, ['scheduled_messages', 'message']);
    const created = await schedule(alice, {
      type: 'channel',
      to: general,
      topic: 'on time',
      content: 'delivered on time',
      scheduled_delivery_timestamp: secondsFromNow(2),
    });
    const id = created.body.scheduled_message_id as number;
    const [event] = await waitForEvents(url(), bob, bobQueue, (seen) => seen.length > 0);
    expect(event).toMatchObject({
      type: 'message',
      flags: [],
      message: { subject: 'on time', sender_id: alice.id, content: '<p>delivered on time</p>' },
    });
    const aliceEvents = await waitForEvents(url(), alice, aliceQueue, (seen) =>
      seen.some((e) => e.op === 'remove'),
    );
    expectZulipSchema('/events', 'get', {
      result: 'success',
      msg: '',
      events: aliceEvents,
      queue_id: aliceQueue,
    });
    expect(aliceEvents.map((e) => `${e.type}/${e.op ?? ''}`)).toEqual([
      'scheduled_messages/add',
      'message/',
      'scheduled_messages/remove',
    ]);
    expect(aliceEvents[1]).toMatchObject({ flags: ['read'] });
    const bobsView = await call(url(), 'GET', '/messages', bob, { anchor: 'newest', num_before: 1 });
    expect(bobsView.body.messages).toEqual([
      expect.objectContaining({ content: '<p>delivered on time</p>', flags: [] }),
    ]);
    expect((await call(url(), 'GET', '/scheduled_messages', alice)).body.scheduled_messages).toEqual([]);
    expect(await workflowOf(id).result()).toBe('delivered');
    expect(await messagesWith('delivered on time')).toHaveLength(1);
  }, 120_000);

  it('an edit of time and content reaches the waiting workflow; a delete cancels it', async () => {
    const bobQueue = await register(bob, ['message']);
    const late = await schedule(alice, {
      type: 'direct',
      to: [bob.id],
      content: 'first draft',
      scheduled_delivery_timestamp: secondsFromNow(3600),
    });
    const id = late.body.scheduled_message_id as number;
    const edited = await call(url(), 'PATCH', `/scheduled_messages/${id}`, alice, {
      content: 'moved earlier',
      scheduled_delivery_timestamp: secondsFromNow(2),
    });
    expect(edited.status).toBe(200);
    const [event] = await waitForEvents(url(), bob, bobQueue, (seen) => seen.length > 0);
    expect(event).toMatchObject({
      type: 'message',
      message: { content: '<p>moved earlier</p>', type: 'private' },
    });
    expect(await workflowOf(id).result()).toBe('delivered');

    const doomed = await schedule(alice, {
      type: 'direct',
      to: [bob.id],
      content: 'never sent',
      scheduled_delivery_timestamp: secondsFromNow(3600),
    });
    const doomedId = doomed.body.scheduled_message_id as number;
    const deleted = await call(url(), 'DELETE', `/scheduled_messages/${doomedId}`, alice);
    expect(deleted.status).toBe(200);
    expect(await workflowOf(doomedId).result()).toBe('cancelled');
    expect(await messagesWith('never sent')).toEqual([]);
  }, 120_000);

  it('concurrent delivery attempts of one due message send it once (the database guard)', async () => {
    const created = await schedule(alice, {
      type: 'direct',
      to: [bob.id],
      content: 'raced',
      scheduled_delivery_timestamp: secondsFromNow(3600),
    });
    const id = created.body.scheduled_message_id as number;
    // Due now as far as the database knows, while its workflow still waits for the old time.
    await stack.database.db.query(
      "UPDATE chat.scheduled_messages SET deliver_at = now() - interval '1 second' WHERE id = :id",
      { replacements: { id } },
    );
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => deliverScheduledMessage(stack.database.db, stack.config, id)),
    );
    const sent = await messagesWith('raced');
    expect(sent).toHaveLength(1);
    // Every attempt, and a later retry, reports the one message.
    const once = { status: 'delivered', messageId: Number(sent[0]!.id) };
    expect(outcomes).toEqual(outcomes.map(() => once));
    expect(await deliverScheduledMessage(stack.database.db, stack.config, id)).toEqual(once);
    await workflowOf(id).cancel();
  });

  /** How long after its time each message with this content prefix was sent (ms; negative: early). */
  const sendTimes = (prefix: string) =>
    stack.database.db.query<{ content: string; late_ms: number }>(
      `SELECT m.content, (extract(epoch FROM s.delivered_at - s.deliver_at) * 1000)::float8 AS late_ms
         FROM chat.messages m JOIN chat.scheduled_messages s ON s.delivered_message_id = m.id
        WHERE m.content LIKE :prefix`,
      { replacements: { prefix: `${prefix}%` }, type: QueryTypes.SELECT },
    );
  /** A scheduled message whose workflow waits an hour, then made due `ms` from now in the database only. */
  const dueIn = async (content: string, ms: number) => {
    const created = await schedule(alice, {
      type: 'direct',
      to: [bob.id],
      content,
      scheduled_delivery_timestamp: secondsFromNow(3600),
    });
    const id = created.body.scheduled_message_id as number;
    await moveInDatabase(id, ms);
    return id;
  };
  /** An edit made behind the API's back (its workflow is not told): a new time and version. */
  const moveInDatabase = (id: number, ms: number) =>
    stack.database.db.query(
      `UPDATE chat.scheduled_messages SET deliver_at = now() + make_interval(secs => :seconds), version = version + 1
        WHERE id = :id`,
      { replacements: { id, seconds: ms / 1000 } },
    );
  const attempt = (id: number, untilMs: number) =>
    deliverScheduledMessage(stack.database.db, stack.config, id, { untilMs });

  it.concurrent(
    'attempts started before the time wait for it: five, 2 s early, send once and none before the time',
    async () => {
      const id = await dueIn('waited for', 2000);
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => attempt(id, Date.now() + 10_000)));
      const sent = await sendTimes('waited for');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.late_ms).toBeGreaterThanOrEqual(0);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(outcomes.map(() => 'delivered'));
      await workflowOf(id).cancel();
    },
  );

  it.concurrent(
    'an attempt does not wait past its limit: a message due after it is answered pending, unsent',
    async () => {
      const id = await dueIn('beyond the limit', 3000);
      const outcome = await attempt(id, Date.now() + 1000);
      expect(outcome).toMatchObject({ status: 'pending', plan: { version: 2 } });
      expect(await sendTimes('beyond the limit')).toEqual([]);
      await call(url(), 'DELETE', `/scheduled_messages/${id}`, alice);
    },
  );

  it.concurrent(
    'a waiting attempt honours the row at the time: moved later it waits on or answers pending; deleted, gone',
    async () => {
      const later = await dueIn('moved later', 1000);
      const farther = await dueIn('moved beyond', 1000);
      const deleted = await dueIn('deleted while waiting', 1000);
      const attempts = [
        attempt(later, Date.now() + 10_000),
        attempt(farther, Date.now() + 10_000),
        attempt(deleted, Date.now() + 10_000),
      ];
      // While they wait: one moves within the attempt's limit, one beyond it, one is deleted.
      await moveInDatabase(later, 3000);
      await moveInDatabase(farther, 3_600_000);
      expect((await call(url(), 'DELETE', `/scheduled_messages/${deleted}`, alice)).status).toBe(200);
      const [laterOutcome, fartherOutcome, deletedOutcome] = await Promise.all(attempts);
      expect(laterOutcome!.status).toBe('delivered');
      const [sent] = await sendTimes('moved later');
      expect(sent!.late_ms).toBeGreaterThanOrEqual(0);
      expect(fartherOutcome).toMatchObject({ status: 'pending', plan: { version: 3 } });
      expect(await sendTimes('moved beyond')).toEqual([]);
      expect(deletedOutcome).toEqual({ status: 'gone' });
      expect(await messagesWith('deleted while waiting')).toEqual([]);
      for (const id of [later, farther]) await workflowOf(id).cancel();
    },
  );

  /** When the workflow handed the message to its delivery activity (the activity's scheduled event), in ms. */
  const handedOverAt = async (id: number) => {
    const history = await workflowOf(id).fetchHistory();
    const scheduled = history.events?.find((event) => event.activityTaskScheduledEventAttributes);
    if (!scheduled) return undefined;
    return Number(scheduled.eventTime!.seconds) * 1000 + (scheduled.eventTime!.nanos ?? 0) / 1e6;
  };
  const deliverAtOf = async (id: number) => {
    const [row] = await stack.database.db.query<{ ms: number }>(
      'SELECT (extract(epoch FROM deliver_at) * 1000)::float8 AS ms FROM chat.scheduled_messages WHERE id = :id',
      { replacements: { id }, type: QueryTypes.SELECT },
    );
    return row!.ms;
  };

  /**
   * The tests from here to the webhook's wait for times seconds away: each has users of its own
   * (a sender and a recipient; the webhook's, Alice and a bot), so that its lists, queues and
   * messages are nobody else's, and they wait at once with the three attempts above (Alice's
   * messages to Bob, sent through no queue and found by their content).
   */
  it.concurrent(
    'a send refused at the time keeps the message with failed: true; a new time schedules it again',
    async () => {
      const { sender, recipient } = await ownPair();
      const senderQueue = await register(sender, ['scheduled_messages']);
      const created = await schedule(sender, {
        type: 'direct',
        to: [recipient.id],
        content: 'to them',
        scheduled_delivery_timestamp: secondsFromNow(REFUSAL_LEAD_SECONDS),
      });
      const id = created.body.scheduled_message_id as number;
      expect((await call(url(), 'DELETE', `/users/${recipient.id}`, admin)).status).toBe(200);
      const events = await waitForEvents(url(), sender, senderQueue, (seen) =>
        seen.some((e) => (e.scheduled_message as { failed?: boolean } | undefined)?.failed === true),
      );
      expectZulipSchema('/events', 'get', { result: 'success', msg: '', events, queue_id: senderQueue });
      expect(events.at(-1)).toMatchObject({
        op: 'update',
        scheduled_message: { scheduled_message_id: id, failed: true },
      });
      expect(await workflowOf(id).result()).toBe('failed');
      const listed = await call(url(), 'GET', '/scheduled_messages', sender);
      expect(listed.body.scheduled_messages).toEqual([
        expect.objectContaining({ scheduled_message_id: id, failed: true }),
      ]);

      const withoutTime = await call(url(), 'PATCH', `/scheduled_messages/${id}`, sender, {
        content: 'to them, again',
      });
      expect(withoutTime.body).toMatchObject({
        code: 'BAD_REQUEST',
        msg: 'Scheduled delivery time must be in the future.',
      });
      expect((await call(url(), 'POST', `/users/${recipient.id}/reactivate`, admin)).status).toBe(200);
      const recipientQueue = await register(recipient, ['message']);
      const again = await call(url(), 'PATCH', `/scheduled_messages/${id}`, sender, {
        scheduled_delivery_timestamp: secondsFromNow(2),
      });
      expect(again.status).toBe(200);
      const [event] = await waitForEvents(url(), recipient, recipientQueue, (seen) => seen.length > 0);
      expect(event).toMatchObject({ type: 'message', message: { content: '<p>to them</p>' } });
      expect(await messagesWith('to them')).toHaveLength(1);
    },
    120_000,
  );

  it.concurrent(
    'permission lost before the time: a private channel the sender left fails the delivery',
    async () => {
      const { sender, recipient } = await ownPair();
      await call(url(), 'POST', '/users/me/subscriptions', sender, {
        subscriptions: [{ name: 'secret' }],
        invite_only: true,
        principals: [sender.id, recipient.id],
      });
      const secret = await channelId('secret');
      const created = await schedule(sender, {
        type: 'channel',
        to: secret,
        topic: 't',
        content: 'secret words',
        scheduled_delivery_timestamp: secondsFromNow(REFUSAL_LEAD_SECONDS),
      });
      const id = created.body.scheduled_message_id as number;
      expect(
        (await call(url(), 'DELETE', '/users/me/subscriptions', sender, { subscriptions: ['secret'] }))
          .status,
      ).toBe(200);
      expect(await workflowOf(id).result()).toBe('failed');
      expect(await messagesWith('secret words')).toEqual([]);
      const listed = await call(url(), 'GET', '/scheduled_messages', sender);
      expect(listed.body.scheduled_messages).toContainEqual(
        expect.objectContaining({ scheduled_message_id: id, failed: true }),
      );
      await call(url(), 'DELETE', `/scheduled_messages/${id}`, sender);
    },
    120_000,
  );

  it.concurrent(
    'at the edges of the wake-early window: handed to the worker before the time, sent once, never early',
    async () => {
      const { sender, recipient } = await ownPair();
      const recipientQueue = await register(recipient, ['message']);
      // Inside the window when created, at its edge, and beyond it (the timer wakes the workflow first).
      const ids = await Promise.all(
        [2, WAKE_EARLY_SECONDS, WAKE_EARLY_SECONDS + 3].map(async (seconds, i) => {
          const created = await schedule(sender, {
            type: 'direct',
            to: [recipient.id],
            content: `edge ${i}`,
            scheduled_delivery_timestamp: secondsFromNow(seconds),
          });
          return created.body.scheduled_message_id as number;
        }),
      );
      await waitForEvents(url(), recipient, recipientQueue, (seen) => seen.length >= ids.length, 90_000);
      for (const id of ids) {
        expect(await workflowOf(id).result()).toBe('delivered');
        expect(await handedOverAt(id)).toBeLessThan(await deliverAtOf(id));
      }
      const sent = await sendTimes('edge ');
      expect(sent.map((row) => row.content).sort()).toEqual(['edge 0', 'edge 1', 'edge 2']);
      expect(sent.filter((row) => row.late_ms < 0)).toEqual([]);
    },
    120_000,
  );

  /** A message due in `seconds`, once its delivery activity waits in the worker. */
  const waitingInWorker = async ({ sender, recipient }: Pair, content: string, seconds: number) => {
    const created = await schedule(sender, {
      type: 'direct',
      to: [recipient.id],
      content,
      scheduled_delivery_timestamp: secondsFromNow(seconds),
    });
    const id = created.body.scheduled_message_id as number;
    await waitUntil(
      async () => {
        const { raw } = await workflowOf(id).describe();
        return raw.pendingActivities?.[0]?.state === PENDING_ACTIVITY_STATE_STARTED;
      },
      'the delivery activity to start',
      60_000,
    );
    return id;
  };

  it.concurrent(
    'edits while the delivery waits in the worker: a later or an earlier time is kept, a deletion sends nothing',
    async () => {
      const pair = await ownPair();
      const { sender, recipient } = pair;
      const recipientQueue = await register(recipient, ['message']);
      // Past a short timer, each waits in the worker for a time up to the window away: one moves
      // 3 s past the window's end (so later than it was), one to 3 s from now.
      const [later, earlier, deleted] = await Promise.all([
        waitingInWorker(pair, 'wait later', WAKE_EARLY_SECONDS + 3),
        waitingInWorker(pair, 'wait earlier', WAKE_EARLY_SECONDS + 3),
        waitingInWorker(pair, 'wait deleted', WAKE_EARLY_SECONDS + 3),
      ]);
      const [laterAt, earlierAt] = [secondsFromNow(WAKE_EARLY_SECONDS + 3), secondsFromNow(3)];
      const edits = await Promise.all([
        call(url(), 'PATCH', `/scheduled_messages/${later}`, sender, {
          content: 'waited later',
          scheduled_delivery_timestamp: laterAt,
        }),
        call(url(), 'PATCH', `/scheduled_messages/${earlier}`, sender, {
          content: 'waited less',
          scheduled_delivery_timestamp: earlierAt,
        }),
        call(url(), 'DELETE', `/scheduled_messages/${deleted}`, sender),
      ]);
      expect(edits.map((edit) => edit.status)).toEqual([200, 200, 200]);
      const events = await waitForEvents(
        url(),
        recipient,
        recipientQueue,
        (seen) => seen.length >= 2,
        90_000,
      );
      expect(events.map((event) => (event.message as { content: string }).content)).toEqual([
        '<p>waited less</p>',
        '<p>waited later</p>',
      ]);
      expect(await workflowOf(deleted).result()).toBe('cancelled');
      for (const id of [later, earlier]) expect(await workflowOf(id).result()).toBe('delivered');
      const sent = Object.fromEntries((await sendTimes('waited ')).map((row) => [row.content, row.late_ms]));
      // Each at or after its new time; the earlier one well before its old one.
      expect(sent['waited later']).toBeGreaterThanOrEqual(0);
      expect(sent['waited less']).toBeGreaterThanOrEqual(0);
      expect(sent['waited less']).toBeLessThan(5000);
      expect(await messagesWith('wait deleted')).toEqual([]);
    },
    120_000,
  );

  it.concurrent(
    'a delivered message calls the outgoing-webhook bot it is sent to, whose answer is its reply',
    async () => {
      const server = await startFakeServer((request) => {
        const payload = JSON.parse(request.body) as { data: string };
        return { status: 200, body: { content: `echo: ${payload.data}` } };
      });
      try {
        const created = await call(url(), 'POST', '/bots', alice, {
          full_name: 'Later Bot',
          short_name: 'laterbot',
          bot_type: 3,
          payload_url: JSON.stringify(server.url),
        });
        const botId = created.body.user_id as number;
        const scheduled = await schedule(alice, {
          type: 'direct',
          to: JSON.stringify([botId]),
          content: 'ping from the past',
          scheduled_delivery_timestamp: secondsFromNow(2),
        });
        expect(scheduled.status).toBe(200);
        expect(await workflowOf(scheduled.body.scheduled_message_id as number).result()).toBe('delivered');
        await waitUntil(
          async () => (await messagesWith('echo: ping from the past')).length === 1,
          "the bot's reply",
        );
        const [reply] = await messagesWith('echo: ping from the past');
        expect(reply!.sender_id).toBe(botId);
        expect(server.requests.map((r) => (JSON.parse(r.body) as { trigger: string }).trigger)).toEqual([
          'direct_message',
        ]);
      } finally {
        await server.close();
      }
    },
    120_000,
  );

  it('GET /scheduled_messages needs authentication', async () => {
    const reply = await call(url(), 'GET', '/scheduled_messages', null);
    expect(reply.status).toBe(401);
  });
});
