import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createOrganization } from '@muse/chat-api';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema, expectZulipSuccess } from './zulip-schema.ts';

describe('channel subscriptions', () => {
  let stack: TestStack;
  let owner: TestUser;
  let member: TestUser;
  let guest: TestUser;
  let admin: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100 });
    admin = await makeUser(stack, { role: 200 });
    member = await makeUser(stack, { role: 400 });
    guest = await makeUser(stack, { role: 600 });
  });
  afterAll(() => stack.stop());

  it('creates a channel, subscribes the caller, and reports it keyed by user id', async () => {
    const { status, body } = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'design', description: 'Design talk' }],
    });
    expect(status).toBe(200);
    expect(body.subscribed).toEqual({ [String(member.id)]: ['design'] });
    expect(body.already_subscribed).toEqual({});
    expectZulipSchema('/users/me/subscriptions', 'post', body);

    const again = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'Design' }],
    });
    expect(again.body.already_subscribed).toEqual({ [String(member.id)]: ['design'] });
    expect(again.body.subscribed).toEqual({});
  });

  it('users creating the same new channel at once all end up subscribed to one channel', async () => {
    const racers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => makeUser(stack)));
    const replies = await Promise.all(
      racers.map((racer) =>
        call(url(), 'POST', '/users/me/subscriptions', racer, { subscriptions: [{ name: 'stampede' }] }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(racers.map(() => 200));
    replies.forEach((reply, i) =>
      expect(reply.body.subscribed).toEqual({ [String(racers[i]?.id)]: ['stampede'] }),
    );
    const listed = await call(url(), 'GET', '/users/me/subscriptions', racers[0] ?? member, {
      include_subscribers: true,
    });
    const stampede = (listed.body.subscriptions as { name: string; subscribers: number[] }[]).filter(
      (sub) => sub.name === 'stampede',
    );
    expect(stampede).toHaveLength(1);
    expect([...(stampede[0]?.subscribers ?? [])].sort()).toEqual(racers.map((r) => r.id).sort());
  });

  it('subscribes principals by id and by email; GET lists them with subscribers', async () => {
    const { body } = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'team' }],
      principals: [member.id, admin.id],
    });
    expect(body.subscribed).toEqual({ [String(member.id)]: ['team'], [String(admin.id)]: ['team'] });
    const byEmail = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'team' }],
      principals: [owner.email],
    });
    expect(byEmail.body.subscribed).toEqual({ [String(owner.id)]: ['team'] });

    const list = await call(url(), 'GET', '/users/me/subscriptions', member, { include_subscribers: true });
    expect(list.status).toBe(200);
    const team = (list.body.subscriptions as { name: string; subscribers: number[] }[]).find(
      (s) => s.name === 'team',
    );
    expect(team?.subscribers.sort()).toEqual([owner.id, admin.id, member.id].sort());
    expectZulipSchema('/users/me/subscriptions', 'get', list.body);
  });

  it('applies creation settings only to new channels', async () => {
    const created = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'secret', description: 'hidden' }],
      invite_only: true,
      history_public_to_subscribers: true,
      message_retention_days: 30,
      topics_policy: 'disable_empty_topic',
      can_remove_subscribers_group: { direct_members: [owner.id], direct_subgroups: [] },
    });
    expect(created.status).toBe(200);
    const existing = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'design', description: 'ignored' }],
      invite_only: true,
    });
    expect(existing.status).toBe(200);
    const list = await call(url(), 'GET', '/users/me/subscriptions', owner);
    const subs = list.body.subscriptions as Record<string, unknown>[];
    expect(subs.find((s) => s.name === 'secret')).toMatchObject({
      invite_only: true,
      history_public_to_subscribers: true,
      message_retention_days: 30,
      topics_policy: 'disable_empty_topic',
      can_remove_subscribers_group: { direct_members: [owner.id], direct_subgroups: [] },
    });
    expect(subs.find((s) => s.name === 'design')).toMatchObject({
      invite_only: false,
      description: 'Design talk',
    });
  });

  it('announce posts new public channels to the announcements channel from the notification bot', async () => {
    await call(url(), 'POST', '/users/me/subscriptions', owner, { subscriptions: [{ name: 'general' }] });
    const narrow = {
      anchor: 'newest',
      num_before: 50,
      narrow: [{ operator: 'channel', operand: 'general' }],
    };
    await call(url(), 'POST', '/users/me/subscriptions', owner, { subscriptions: [{ name: 'quiet-one' }] });
    expect((await call(url(), 'GET', '/messages', owner, narrow)).body.messages).toEqual([]);
    const loud = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'loud-one' }],
      announce: true,
    });
    expect(loud.status).toBe(200);
    const messages = (await call(url(), 'GET', '/messages', owner, narrow)).body.messages as Record<
      string,
      unknown
    >[];
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ sender_full_name: 'Notification Bot', subject: 'new channels' });
    expect(messages[0]?.content).toMatch(
      /<a class="stream" data-stream-id="\d+" href="[^"]+">#loud-one<\/a>/,
    );
  });

  it('message_retention_days other than the default needs an owner', async () => {
    const { status, body } = await call(url(), 'POST', '/users/me/subscriptions', admin, {
      subscriptions: [{ name: 'retained' }],
      message_retention_days: 'unlimited',
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Must be an organization owner' });
  });

  it('message_retention_days beyond what can be stored is 400, not a failed insert', async () => {
    const { status, body } = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'retained-forever' }],
      message_retention_days: '99999999999',
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "Bad value for 'message_retention_days': 99999999999",
    });
  });

  it('is_web_public is refused when the server does not allow web-public channels', async () => {
    const { status, body } = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'public-web' }],
      is_web_public: true,
    });
    expect(status).toBe(400);
    expect(body.msg).toBe('Web-public channels are not enabled.');
  });

  it('is_default_stream needs an administrator and a public channel', async () => {
    const byMember = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'def1' }],
      is_default_stream: true,
    });
    expect(byMember.status).toBe(400);
    expect(byMember.body.msg).toBe('Insufficient permission');
    const priv = await call(url(), 'POST', '/users/me/subscriptions', admin, {
      subscriptions: [{ name: 'def2' }],
      is_default_stream: true,
      invite_only: true,
    });
    expect(priv.body.msg).toBe('A default channel cannot be private.');
  });

  it('an unknown or deactivated principal is 400 BAD_REQUEST', async () => {
    const unknown = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'design' }],
      principals: [999999],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'No such user' });
    const gone = await makeUser(stack);
    await call(url(), 'DELETE', `/users/${gone.id}`, owner);
    const deactivated = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'design' }],
      principals: [gone.email],
    });
    expect(deactivated.status).toBe(400);
    expect(deactivated.body.code).toBe('BAD_REQUEST');
  });

  it('private channel: fatal authorization error by default, the unauthorized list when not fatal', async () => {
    const fatal = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'secret' }],
    });
    expect(fatal.status).toBe(400);
    expect(fatal.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Unable to access channel (secret).' });
    const lenient = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'secret' }, { name: 'design' }],
      authorization_errors_fatal: false,
    });
    expect(lenient.status).toBe(200);
    expect(lenient.body.unauthorized).toEqual(['secret']);
    expectZulipSchema('/users/me/subscriptions', 'post', lenient.body);
  });

  it('a group setting lets a member subscribe to a private channel (can_subscribe_group)', async () => {
    await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'club' }],
      invite_only: true,
      can_subscribe_group: { direct_members: [member.id], direct_subgroups: [] },
    });
    const joined = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'club' }],
    });
    expect(joined.status).toBe(200);
    expect(joined.body.subscribed).toEqual({ [String(member.id)]: ['club'] });
  });

  it('feature level 349: can_add_subscribers_group lets a member who is not subscribed add others to a private channel', async () => {
    const target = await makeUser(stack, { role: 400 });
    await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'adders only' }],
      invite_only: true,
      can_add_subscribers_group: { direct_members: [member.id], direct_subgroups: [] },
    });
    const added = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'adders only' }],
      principals: [target.id],
    });
    expect(added.status).toBe(200);
    expect(added.body.subscribed).toEqual({ [String(target.id)]: ['adders only'] });
    const byOther = await call(url(), 'POST', '/users/me/subscriptions', guest, {
      subscriptions: [{ name: 'adders only' }],
      authorization_errors_fatal: false,
    });
    expect(byOther.body.unauthorized).toEqual(['adders only']);
  });

  it('feature level 362: subscriptions in an archived channel can still be modified', async () => {
    await call(url(), 'POST', '/users/me/subscriptions', owner, { subscriptions: [{ name: 'archive me' }] });
    await stack.database.db.query("UPDATE chat.streams SET is_archived = true WHERE name = 'archive me'");
    const joined = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'archive me' }],
      principals: [member.id],
    });
    expect(joined.status).toBe(200);
    expect(joined.body.subscribed).toEqual({ [String(member.id)]: ['archive me'] });
    const streamId = (
      (await call(url(), 'GET', '/users/me/subscriptions', member)).body.subscriptions as {
        name: string;
        stream_id: number;
      }[]
    ).find((s) => s.name === 'archive me')!.stream_id;
    const muted = await call(url(), 'POST', '/users/me/subscriptions/properties', member, {
      subscription_data: [{ stream_id: streamId, property: 'is_muted', value: true }],
    });
    expect(muted.status).toBe(200);
    const left = await call(url(), 'DELETE', '/users/me/subscriptions', member, {
      subscriptions: ['archive me'],
    });
    expect(left.body).toMatchObject({ removed: ['archive me'], not_removed: [] });
  });

  it("message_retention_days: 'realm_default' creates a channel that follows the organization (null)", async () => {
    const created = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'default retention' }],
      message_retention_days: 'realm_default',
    });
    expect(created.status).toBe(200);
    const subs = (await call(url(), 'GET', '/users/me/subscriptions', member)).body.subscriptions as {
      name: string;
      message_retention_days: unknown;
    }[];
    expect(subs.find((s) => s.name === 'default retention')).toMatchObject({ message_retention_days: null });
  });

  it('group settings are validated: unknown group id is 400', async () => {
    const { status, body } = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'grouped' }],
      can_add_subscribers_group: 987654,
    });
    expect(status).toBe(400);
    expect(body.msg).toBe('Invalid user group ID in can_add_subscribers_group');
  });

  it('a guest may not create channels or subscribe others', async () => {
    const create = await call(url(), 'POST', '/users/me/subscriptions', guest, {
      subscriptions: [{ name: 'guest-made' }],
    });
    expect(create.status).toBe(400);
    const others = await call(url(), 'POST', '/users/me/subscriptions', guest, {
      subscriptions: [{ name: 'design' }],
      principals: [member.id],
    });
    expect(others.status).toBe(400);
    expect(others.body.msg).toBe('Insufficient permission');
  });

  it('missing subscriptions is REQUEST_VARIABLE_MISSING; a bad name or JSON is BAD_REQUEST', async () => {
    const missing = await call(url(), 'POST', '/users/me/subscriptions', member, {});
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'subscriptions' });
    const tooLong = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'x'.repeat(61) }],
    });
    expect(tooLong.status).toBe(400);
    const badJson = await call(url(), 'POST', '/users/me/subscriptions', member, { subscriptions: '[{' });
    expect(badJson.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'subscriptions is not valid JSON' });
  });

  it('DELETE unsubscribes, reporting removed and not_removed', async () => {
    await call(url(), 'POST', '/users/me/subscriptions', member, { subscriptions: [{ name: 'leaving' }] });
    const { status, body } = await call(url(), 'DELETE', '/users/me/subscriptions', member, {
      subscriptions: ['leaving'],
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ removed: ['leaving'], not_removed: [] });
    expectZulipSchema('/users/me/subscriptions', 'delete', body);
    const again = await call(url(), 'DELETE', '/users/me/subscriptions', member, {
      subscriptions: ['leaving'],
    });
    expect(again.body).toMatchObject({ removed: [], not_removed: ['leaving'] });
    const others = await call(url(), 'DELETE', '/users/me/subscriptions', member, {
      subscriptions: ['team'],
      principals: [admin.id],
    });
    expect(others.status).toBe(400);
    expect(others.body.msg).toBe('Insufficient permission');
  });

  it('properties: bulk and single-channel updates; validation errors', async () => {
    const list = await call(url(), 'GET', '/users/me/subscriptions', member);
    const design = (list.body.subscriptions as { name: string; stream_id: number }[]).find(
      (s) => s.name === 'design',
    );
    if (!design) throw new Error('design missing');
    const bulk = await call(url(), 'POST', '/users/me/subscriptions/properties', member, {
      subscription_data: [
        { stream_id: design.stream_id, property: 'color', value: '#abcdef' },
        { stream_id: design.stream_id, property: 'pin_to_top', value: true },
        { stream_id: design.stream_id, property: 'in_home_view', value: false },
      ],
    });
    expect(bulk.status).toBe(200);
    expectZulipSchema('/users/me/subscriptions/properties', 'post', bulk.body);
    const single = await call(url(), 'POST', `/users/me/subscriptions/${design.stream_id}`, member, {
      property: 'desktop_notifications',
      value: 'true',
    });
    expect(single.status).toBe(200);
    expectZulipSuccess(single.body);
    const after = await call(url(), 'GET', '/users/me/subscriptions', member);
    expect(
      (after.body.subscriptions as Record<string, unknown>[]).find((s) => s.name === 'design'),
    ).toMatchObject({
      color: '#abcdef',
      pin_to_top: true,
      is_muted: true,
      in_home_view: false,
      desktop_notifications: true,
    });
    const badColor = await call(url(), 'POST', '/users/me/subscriptions/properties', member, {
      subscription_data: [{ stream_id: design.stream_id, property: 'color', value: 'red' }],
    });
    expect(badColor.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'color is not a valid hex color code' });
    const badProperty = await call(url(), 'POST', '/users/me/subscriptions/properties', member, {
      subscription_data: [{ stream_id: design.stream_id, property: 'nope', value: true }],
    });
    expect(badProperty.body.msg).toBe('Unknown subscription property: nope');
    const secret = await call(url(), 'GET', '/users/me/subscriptions', owner);
    const secretId = (secret.body.subscriptions as { name: string; stream_id: number }[]).find(
      (s) => s.name === 'secret',
    )?.stream_id;
    const notSubscribed = await call(url(), 'POST', '/users/me/subscriptions/properties', member, {
      subscription_data: [{ stream_id: secretId, property: 'pin_to_top', value: true }],
    });
    expect(notSubscribed.body.msg).toBe(`Not subscribed to channel ID ${secretId}`);
  });
});

describe('web-public channels', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_WEB_PUBLIC_STREAMS: 'true' });
    await createOrganization(stack.database.db, { subdomain: '', name: 'Open', spectatorAccess: true });
    await createOrganization(stack.database.db, { subdomain: 'closed', name: 'Closed' });
  });
  afterAll(() => stack.stop());

  it('need the server setting, spectator access in the organization, and an administrator', async () => {
    const admin = await makeUser(stack, { role: 200 });
    const member = await makeUser(stack);
    const created = await call(stack.chatUrl, 'POST', '/users/me/subscriptions', admin, {
      subscriptions: [{ name: 'open-web' }],
      is_web_public: true,
    });
    expect(created.status).toBe(200);
    const list = await call(stack.chatUrl, 'GET', '/users/me/subscriptions', admin);
    expect(
      (list.body.subscriptions as Record<string, unknown>[]).find((s) => s.name === 'open-web'),
    ).toMatchObject({
      is_web_public: true,
    });
    const byMember = await call(stack.chatUrl, 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'member-web' }],
      is_web_public: true,
    });
    expect(byMember.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
    const closedAdmin = await makeUser(stack, { role: 200, subdomain: 'closed' });
    const closed = await call(
      stack.chatUrl,
      'POST',
      '/users/me/subscriptions',
      closedAdmin,
      { subscriptions: [{ name: 'closed-web' }], is_web_public: true },
      { host: 'closed.localhost' },
    );
    expect(closed.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Web-public channels are not enabled.' });
  });
});
