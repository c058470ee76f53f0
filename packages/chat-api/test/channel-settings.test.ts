import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  waitForEvents,
  type QueuedEvent,
  type TestUser,
} from '@muse/test-support/chat';
import { expectZulipComponent, expectZulipSchema } from './zulip-schema.ts';

describe('PATCH and DELETE /streams/{stream_id} (issue 26, item 4)', () => {
  let stack: TestStack;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let other: TestUser;
  const url = () => stack.chatUrl;
  const register = async (user: TestUser, eventTypes: string[]) =>
    (await call(url(), 'POST', '/register', user, { event_types: eventTypes })).body.queue_id as string;
  const eventsOf = async (user: TestUser, queue: string, done: (e: QueuedEvent[]) => boolean) => {
    const events = await waitForEvents(url(), user, queue, done);
    expectZulipSchema('/events', 'get', { result: 'success', msg: '', events, queue_id: queue });
    return events;
  };
  const create = async (user: TestUser, name: string, extra: Record<string, unknown> = {}) => {
    await call(url(), 'POST', '/users/me/subscriptions', user, { subscriptions: [{ name }], ...extra });
    const id = await call(url(), 'GET', '/get_stream_id', user, { stream: name });
    return id.body.stream_id as number;
  };
  const channel = async (user: TestUser, id: number) =>
    (await call(url(), 'GET', `/streams/${id}`, user)).body.stream as Record<string, unknown>;

  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100, name: 'Olga Owner' });
    admin = await makeUser(stack, { role: 200, name: 'Ada Admin' });
    member = await makeUser(stack, { name: 'Mel Member' });
    other = await makeUser(stack, { name: 'Otto Other' });
  });
  afterAll(() => stack.stop());

  it('renames and re-describes a channel; everyone who sees it gets stream update events', async () => {
    const id = await create(member, 'plans');
    const queue = await register(other, ['stream']);
    const reply = await call(url(), 'PATCH', `/streams/${id}`, admin, {
      new_name: 'roadmap',
      description: 'Where we *plan*',
    });
    expect(reply.status).toBe(200);
    expectZulipSchema('/streams/{stream_id}', 'patch', reply.body);
    const events = await eventsOf(other, queue, (e) => e.length >= 2);
    expect(events).toEqual([
      expect.objectContaining({
        op: 'update',
        stream_id: id,
        name: 'plans',
        property: 'name',
        value: 'roadmap',
      }),
      expect.objectContaining({
        op: 'update',
        property: 'description',
        value: 'Where we *plan*',
        rendered_description: '<p>Where we <em>plan</em></p>',
      }),
    ]);
    expect(await channel(other, id)).toMatchObject({ name: 'roadmap', description: 'Where we *plan*' });
  });

  it('a member who does not administer the channel is refused; a channel administrator may', async () => {
    const id = await create(member, 'refused');
    const refused = await call(url(), 'PATCH', `/streams/${id}`, other, { description: 'mine now' });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe('Insufficient permission');
    // The creator is in the new channel's can_administer_channel_group (Zulip's default).
    const allowed = await call(url(), 'PATCH', `/streams/${id}`, member, { description: 'still mine' });
    expect(allowed.status).toBe(200);
    expect((await channel(member, id)).description).toBe('still mine');
  });

  it('checks every change before writing any: a taken name, bad privacy combinations, roles', async () => {
    const id = await create(member, 'checked');
    await create(member, 'taken');
    const cases: [TestUser, Record<string, unknown>, string][] = [
      [admin, { new_name: 'TAKEN' }, 'Channel name already in use.'],
      [admin, { new_name: '  ' }, "Channel name can't be empty."],
      [admin, { description: 'x'.repeat(1025) }, 'Channel description too long (limit: 1024 characters).'],
      [admin, { history_public_to_subscribers: false }, 'Invalid parameters'],
      [admin, { is_private: true, is_web_public: true }, 'Invalid parameters'],
      [
        admin,
        { new_name: 'fine', is_default_stream: true, is_private: true },
        'A default channel cannot be private.',
      ],
      [member, { is_default_stream: true }, 'Insufficient permission'],
      [admin, { message_retention_days: '30' }, 'Must be an organization owner'],
      [owner, { message_retention_days: 'forever' }, "Bad value for 'message_retention_days': forever"],
      [
        admin,
        { new_name: 'fine', can_send_message_group: { new: 999_999 } },
        'Invalid user group ID in can_send_message_group',
      ],
      [
        admin,
        { can_send_message_group: { new: 1, old: { direct_members: [1], direct_subgroups: [] } } },
        "'old' value does not match the expected value.",
      ],
    ];
    for (const [user, params, msg] of cases) {
      const reply = await call(url(), 'PATCH', `/streams/${id}`, user, params);
      expect([reply.status, reply.body.msg], JSON.stringify(params)).toEqual([400, msg]);
    }
    expect(await channel(admin, id)).toMatchObject({ name: 'checked', invite_only: false });
    const missing = await call(url(), 'PATCH', '/streams/999999', admin, { description: 'x' });
    expect(missing.status).toBe(400);
    expectZulipComponent('InvalidChannelError', missing.body);
  });

  it('making a channel private hides it from non-subscribers (stream delete) and back (stream create)', async () => {
    const id = await create(member, 'secretive', { principals: [member.id, admin.id] });
    const queue = await register(other, ['stream']);
    const hide = await call(url(), 'PATCH', `/streams/${id}`, member, {
      is_private: true,
      history_public_to_subscribers: false,
    });
    expect(hide.status).toBe(200);
    expect((await eventsOf(other, queue, (e) => e.length >= 1))[0]).toMatchObject({
      op: 'delete',
      stream_ids: [id],
    });
    expect((await call(url(), 'GET', `/streams/${id}`, other)).body.msg).toBe('Invalid channel ID');
    const adminQueue = await register(admin, ['stream']);
    expect((await call(url(), 'PATCH', `/streams/${id}`, admin, { is_private: false })).status).toBe(200);
    const shown = await eventsOf(other, queue, (e) => e.length >= 2);
    expect(shown[1]).toMatchObject({ op: 'create', streams: [expect.objectContaining({ stream_id: id })] });
    const update = (await eventsOf(admin, adminQueue, (e) => e.length >= 1))[0];
    expect(update).toMatchObject({
      op: 'update',
      property: 'invite_only',
      value: false,
      history_public_to_subscribers: true,
      is_web_public: false,
    });
  });

  it('an administrator not subscribed to a private channel may rename it but not change who reads it', async () => {
    const id = await create(member, 'closed', { invite_only: true });
    expect((await call(url(), 'PATCH', `/streams/${id}`, admin, { new_name: 'closed-renamed' })).status).toBe(
      200,
    );
    const reply = await call(url(), 'PATCH', `/streams/${id}`, admin, { is_private: false });
    expect(reply.body.msg).toBe('Invalid channel ID');
    expect((await call(url(), 'PATCH', `/streams/${id}`, other, { new_name: 'x' })).body.msg).toBe(
      'Invalid channel ID',
    );
  });

  it('default status and group settings: default_streams and update events, /register reports them', async () => {
    const id = await create(member, 'everyone');
    const queue = await register(other, ['stream', 'default_streams']);
    const reply = await call(url(), 'PATCH', `/streams/${id}`, admin, {
      is_default_stream: true,
      can_send_message_group: { new: { direct_members: [member.id], direct_subgroups: [] } },
    });
    expect(reply.status).toBe(200);
    const events = await eventsOf(other, queue, (e) => e.length >= 2);
    expect(events[0]).toMatchObject({
      type: 'stream',
      property: 'can_send_message_group',
      value: { direct_members: [member.id], direct_subgroups: [] },
    });
    expect(events[1]).toMatchObject({
      type: 'default_streams',
      default_streams: expect.arrayContaining([id]),
    });
    const state = await call(url(), 'POST', '/register', other, { fetch_event_types: ['default_streams'] });
    expect(state.body.realm_default_streams).toContain(id);
    const send = await call(url(), 'POST', '/messages', other, {
      type: 'stream',
      to: id,
      topic: 't',
      content: 'may I?',
    });
    expect(send.body.msg).toBe('You do not have permission to post in this channel.');
  });

  it('DELETE archives: stream delete to its viewers, no longer default, nobody posts; twice is an error', async () => {
    const id = await create(member, 'old-news');
    await call(url(), 'PATCH', `/streams/${id}`, admin, { is_default_stream: true });
    const queue = await register(other, ['stream', 'default_streams']);
    const refused = await call(url(), 'DELETE', `/streams/${id}`, other);
    expect(refused.body.msg).toBe('Insufficient permission');
    const reply = await call(url(), 'DELETE', `/streams/${id}`, admin);
    expect(reply.status).toBe(200);
    expectZulipSchema('/streams/{stream_id}', 'delete', reply.body);
    const events = await eventsOf(other, queue, (e) => e.length >= 2);
    expect(events[0]).toMatchObject({
      type: 'stream',
      op: 'delete',
      stream_ids: [id],
      streams: [{ stream_id: id }],
    });
    expect(events[1]?.type).toBe('default_streams');
    expect(events[1]?.default_streams).not.toContain(id);
    expect(await channel(admin, id)).toMatchObject({ is_archived: true });
    const listed = await call(url(), 'GET', '/streams', other);
    expect((listed.body.streams as { stream_id: number }[]).map((s) => s.stream_id)).not.toContain(id);
    const send = await call(url(), 'POST', '/messages', member, {
      type: 'stream',
      to: id,
      topic: 't',
      content: 'x',
    });
    expect(send.body.msg).toBe("Channel 'old-news' is archived.");
    const again = await call(url(), 'DELETE', `/streams/${id}`, admin);
    expect([again.status, again.body.msg]).toEqual([400, 'Channel is already deactivated']);
    const missing = await call(url(), 'DELETE', '/streams/999999', admin);
    expectZulipComponent('InvalidChannelError', missing.body);
  });
});
