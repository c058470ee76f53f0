import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema, expectZulipSuccess } from './zulip-schema.ts';

describe('users: lookup and administration', () => {
  let stack: TestStack;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let hidden: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100, canChangeUserEmails: true });
    admin = await makeUser(stack, { role: 200 });
    member = await makeUser(stack, { role: 400 });
    hidden = await makeUser(stack, { role: 400, visibility: 3 }); // admins only
  });
  afterAll(() => stack.stop());

  it('GET /users/{email} by real address, in the reference shape', async () => {
    const { status, body } = await call(url(), 'GET', `/users/${member.email}`, admin);
    expect(status).toBe(200);
    expect(body.user).toMatchObject({
      user_id: member.id,
      email: member.email,
      delivery_email: member.email,
      role: 400,
      is_active: true,
      avatar_url: null,
    });
    expectZulipSchema('/users/{email}', 'get', body);
  });

  it('email visibility: a hidden address is not found by real email for a member, but by the dummy address', async () => {
    const byReal = await call(url(), 'GET', `/users/${hidden.email}`, member);
    expect(byReal.status).toBe(400);
    expect(byReal.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'No such user' });
    const dummy = `user${hidden.id}@localhost`;
    const byDummy = await call(url(), 'GET', `/users/${dummy}`, member, { client_gravatar: false });
    expect(byDummy.status).toBe(200);
    const user = byDummy.body.user as Record<string, unknown>;
    expect(user).toMatchObject({ user_id: hidden.id, email: dummy, delivery_email: null });
    expect(user.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
    expectZulipSchema('/users/{email}', 'get', byDummy.body);
    const asAdmin = await call(url(), 'GET', `/users/${hidden.email}`, admin);
    expect((asAdmin.body.user as Record<string, unknown>).delivery_email).toBe(hidden.email);
  });

  it('include_custom_profile_fields adds profile_data', async () => {
    const field = await call(url(), 'POST', '/realm/profile_fields', admin, { name: 'Team', field_type: 1 });
    expect(field.status).toBe(200);
    await call(url(), 'PATCH', '/users/me/profile_data', member, {
      data: [{ id: field.body.id, value: 'Platform' }],
    });
    const { body } = await call(url(), 'GET', `/users/${member.email}`, admin, {
      include_custom_profile_fields: true,
    });
    expect((body.user as { profile_data: unknown }).profile_data).toEqual({
      [String(field.body.id)]: { value: 'Platform', rendered_value: '<p>Platform</p>' },
    });
    expectZulipSchema('/users/{email}', 'get', body);
  });

  it('profile values render as escaped HTML, never as markup of their own; non-text fields have no rendering', async () => {
    const bio = await call(url(), 'POST', '/realm/profile_fields', admin, { name: 'Bio', field_type: 2 });
    const birthday = await call(url(), 'POST', '/realm/profile_fields', admin, {
      name: 'Born',
      field_type: 4,
    });
    const { queue_id } = (await call(url(), 'POST', '/register', admin, { event_types: ['realm_user'] }))
      .body;
    const script = '<img src=x onerror="alert(1)">';
    const set = await call(url(), 'PATCH', '/users/me/profile_data', member, {
      data: [
        { id: bio.body.id, value: script },
        { id: birthday.body.id, value: '1990-01-01' },
      ],
    });
    expect(set.status).toBe(200);
    const escaped = '<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</p>';
    const { body } = await call(url(), 'GET', `/users/${member.id}`, admin, {
      include_custom_profile_fields: true,
    });
    const profile = (body.user as { profile_data: Record<string, unknown> }).profile_data;
    expect(profile[String(bio.body.id)]).toEqual({ value: script, rendered_value: escaped });
    expect(profile[String(birthday.body.id)]).toEqual({ value: '1990-01-01' });
    const events = await call(url(), 'GET', '/events', admin, { queue_id, dont_block: true });
    expect(
      (events.body.events as { person: { custom_profile_field: unknown } }[]).map(
        (e) => e.person.custom_profile_field,
      ),
    ).toEqual([
      { id: bio.body.id, value: script, rendered_value: escaped },
      { id: birthday.body.id, value: '1990-01-01' },
    ]);
  });

  it('select fields: field_data must define choices; only a defined choice is a value', async () => {
    for (const fieldData of ['garbage', 'null', '{}', '{"a": "A"}']) {
      const bad = await call(url(), 'POST', '/realm/profile_fields', admin, {
        name: 'Shift',
        field_type: 3,
        field_data: fieldData,
      });
      expect([fieldData, bad.status, bad.body.code]).toEqual([fieldData, 400, 'BAD_REQUEST']);
    }
    const shift = await call(url(), 'POST', '/realm/profile_fields', admin, {
      name: 'Shift',
      field_type: 3,
      field_data: JSON.stringify({ early: { text: 'Early', order: '1' } }),
    });
    expect(shift.status).toBe(200);
    for (const value of ['constructor', 'toString', 'late']) {
      const refused = await call(url(), 'PATCH', '/users/me/profile_data', member, {
        data: [{ id: shift.body.id, value }],
      });
      expect([value, refused.status, refused.body.msg]).toEqual([
        value,
        400,
        `'${value}' is not a valid choice for 'Shift'.`,
      ]);
    }
    const chosen = await call(url(), 'PATCH', '/users/me/profile_data', member, {
      data: [{ id: shift.body.id, value: 'early' }],
    });
    expect(chosen.status).toBe(200);
  });

  it('GET /users lists members in the reference shape', async () => {
    const { status, body } = await call(url(), 'GET', '/users', member);
    expect(status).toBe(200);
    expect((body.members as { user_id: number }[]).map((m) => m.user_id)).toEqual(
      expect.arrayContaining([owner.id, member.id]),
    );
    expectZulipSchema('/users', 'get', body);
  });

  it('PATCH /users/{user_id}: an administrator changes name and role', async () => {
    const target = await makeUser(stack);
    const { status, body } = await call(url(), 'PATCH', `/users/${target.id}`, admin, {
      full_name: 'Renamed',
      role: 300,
    });
    expect(status).toBe(200);
    expectZulipSchema('/users/{user_id}', 'patch', body);
    const after = await call(url(), 'GET', `/users/${target.email}`, admin);
    expect(after.body.user).toMatchObject({ full_name: 'Renamed', role: 300 });
  });

  it('PATCH /users/{email} targets by email', async () => {
    const target = await makeUser(stack);
    const { status, body } = await call(url(), 'PATCH', `/users/${target.email}`, admin, {
      full_name: 'By Email',
    });
    expect(status).toBe(200);
    expectZulipSchema('/users/{email}', 'patch', body);
    const after = await call(url(), 'GET', `/users/${target.email}`, admin);
    expect((after.body.user as { full_name: string }).full_name).toBe('By Email');
  });

  it('role rules: members cannot administer, only owners touch the owner role, the only owner keeps it, guests are not made admins in one step', async () => {
    const target = await makeUser(stack);
    const byMember = await call(url(), 'PATCH', `/users/${target.id}`, member, { role: 300 });
    expect(byMember.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Must be an organization administrator',
    });
    const promoteByAdmin = await call(url(), 'PATCH', `/users/${target.id}`, admin, { role: 100 });
    expect(promoteByAdmin.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Must be an organization owner' });
    const lastOwner = await call(url(), 'PATCH', `/users/${owner.id}`, owner, { role: 200 });
    expect(lastOwner.status).toBe(400);
    expect(lastOwner.body.msg).toBe(
      'The owner permission cannot be removed from the only organization owner.',
    );
    const guest = await makeUser(stack, { role: 600 });
    const guestToAdmin = await call(url(), 'PATCH', `/users/${guest.id}`, owner, { role: 200 });
    expect(guestToAdmin.status).toBe(400);
    expect(guestToAdmin.body.code).toBe('BAD_REQUEST');
    const invalid = await call(url(), 'PATCH', `/users/${target.id}`, admin, { role: 250 });
    expect(invalid.body.msg).toBe('Invalid role');
    const guestToMember = await call(url(), 'PATCH', `/users/${guest.id}`, owner, { role: 400 });
    expect(guestToMember.status).toBe(200);
    const ownerByOwner = await call(url(), 'PATCH', `/users/${target.id}`, owner, { role: 100 });
    expect(ownerByOwner.status).toBe(200);
    // With two owners now, one may demote the other (and promote them back).
    const demoted = await call(url(), 'PATCH', `/users/${owner.id}`, target, { role: 200 });
    expect(demoted.status).toBe(200);
    const roleOf = async (id: number) =>
      ((await call(url(), 'GET', `/users/${id}`, admin)).body.user as { role: number }).role;
    expect(await roleOf(owner.id)).toBe(200);
    const restored = await call(url(), 'PATCH', `/users/${owner.id}`, target, { role: 100 });
    expect(restored.status).toBe(200);
    expect(await roleOf(owner.id)).toBe(100);
  });

  it('new_email needs an owner with the email-change permission', async () => {
    const target = await makeUser(stack);
    const byAdmin = await call(url(), 'PATCH', `/users/${target.id}`, admin, {
      new_email: 'changed@example.com',
    });
    expect(byAdmin.status).toBe(400);
    expect(byAdmin.body.msg).toBe('User not authorized to change email addresses');
    const byOwner = await call(url(), 'PATCH', `/users/${target.id}`, owner, {
      new_email: `changed-${target.id}@example.com`,
    });
    expect(byOwner.status).toBe(200);
    const after = await call(url(), 'GET', `/users/${target.id}`, owner);
    expect((after.body.user as { delivery_email: string }).delivery_email).toBe(
      `changed-${target.id}@example.com`,
    );
  });

  it('user changes reach every queue as realm_user and custom_profile_fields events in the reference shape', async () => {
    const target = await makeUser(stack);
    const queue = await call(url(), 'POST', '/register', member, {
      event_types: ['realm_user', 'custom_profile_fields'],
    });
    const queueId = queue.body.queue_id as string;
    await call(url(), 'PATCH', `/users/${target.id}`, admin, { role: 300, full_name: 'Evented' });
    const field = await call(url(), 'POST', '/realm/profile_fields', admin, { name: 'Desk', field_type: 1 });
    await call(url(), 'PATCH', '/users/me/profile_data', target, {
      data: [{ id: field.body.id, value: 'B2' }],
    });
    await call(url(), 'DELETE', `/users/${target.id}`, admin);
    await call(url(), 'POST', `/users/${target.id}/reactivate`, admin);
    const { body } = await call(url(), 'GET', '/events', member, { queue_id: queueId, last_event_id: -1 });
    expectZulipSchema('/events', 'get', body);
    const people = (body.events as { type: string; person?: Record<string, unknown> }[]).map((e) =>
      e.type === 'realm_user' ? Object.keys(e.person ?? {}).filter((k) => k !== 'user_id')[0] : e.type,
    );
    expect(people).toEqual([
      'role',
      'full_name',
      'custom_profile_fields',
      'custom_profile_field',
      'is_active',
      'is_active',
    ]);
    // The event lists the fields as the creating transaction left them, the new one included.
    const fieldsEvent = (body.events as { type: string; fields?: { name: string }[] }[]).find(
      (e) => e.type === 'custom_profile_fields',
    );
    expect(fieldsEvent?.fields?.map((f) => f.name)).toContain('Desk');
  });

  it('an unknown user is 400 No such user', async () => {
    const { status, body } = await call(url(), 'PATCH', '/users/999999', admin, { full_name: 'x' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'BAD_REQUEST', msg: 'No such user' });
  });

  it('DELETE deactivates (bots first, with actions) and reactivate restores', async () => {
    const target = await makeUser(stack);
    const bot = await makeUser(stack, { isBot: true, botOwnerId: target.id });
    await call(url(), 'POST', '/users/me/subscriptions', target, { subscriptions: [{ name: 'to-clean' }] });
    await call(url(), 'POST', '/messages', target, {
      type: 'stream',
      to: 'to-clean',
      topic: 't',
      content: 'bye',
    });
    const narrow = { narrow: [{ operator: 'channel', operand: 'to-clean' }], num_before: 10 };
    expect((await call(url(), 'GET', '/messages', target, narrow)).body.messages).toHaveLength(1);
    const { status, body } = await call(url(), 'DELETE', `/users/${target.id}`, admin, {
      actions: { delete_profile: true, delete_public_channel_messages: true },
      deactivation_notification_comment: 'Thanks for everything',
    });
    expect(status).toBe(200);
    expectZulipSchema('/users/{user_id}', 'delete', body);
    const after = await call(url(), 'GET', `/users/${target.id}`, admin);
    expect(after.body.user).toMatchObject({ is_active: false, full_name: 'Deleted user' });
    const botAfter = await call(url(), 'GET', `/users/${bot.id}`, admin);
    expect(botAfter.body.user).toMatchObject({ is_active: false, is_bot: true, bot_owner_id: target.id });
    const reactivated = await call(url(), 'POST', `/users/${target.id}/reactivate`, admin);
    expect(reactivated.status).toBe(200);
    expect((await call(url(), 'GET', '/messages', target, narrow)).body.messages).toEqual([]);
    expectZulipSchema('/users/{user_id}/reactivate', 'post', reactivated.body);
    expect((await call(url(), 'GET', `/users/${target.id}`, admin)).body.user).toMatchObject({
      is_active: true,
    });
    const again = await call(url(), 'POST', `/users/${target.id}/reactivate`, admin);
    expect(again.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'User is already active' });
  });

  it('DELETE: the only owner cannot be deactivated; members cannot deactivate; bad actions are 400', async () => {
    // The main organization has two owners by now; a fresh one has a sole owner.
    await makeOrganization(stack, 'solo');
    const solo = await makeUser(stack, { role: 100, subdomain: 'solo' });
    const host = { host: 'solo.localhost' };
    const onlyOwner = await call(url(), 'DELETE', `/users/${solo.id}`, solo, {}, host);
    expect(onlyOwner.status).toBe(400);
    expect(onlyOwner.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Cannot deactivate the only organization owner',
    });
    const byMember = await call(url(), 'DELETE', `/users/${admin.id}`, member);
    expect(byMember.body.msg).toBe('Must be an organization administrator');
    const badActions = await call(url(), 'DELETE', `/users/${member.id}`, admin, {
      actions: { explode: true },
    });
    expect(badActions.status).toBe(400);
    const tooLong = await call(url(), 'DELETE', `/users/${member.id}`, admin, {
      deactivation_notification_comment: 'x'.repeat(2001),
    });
    expect(tooLong.status).toBe(400);
  });

  it('two owners removing each other at once leave one owner: demotion and deactivation', async () => {
    for (const [subdomain, method, params] of [
      ['duel-demote', 'PATCH', { role: 200 }],
      ['duel-deactivate', 'DELETE', {}],
    ] as const) {
      await makeOrganization(stack, subdomain);
      const host = { host: `${subdomain}.localhost` };
      const first = await makeUser(stack, { role: 100, subdomain });
      const second = await makeUser(stack, { role: 100, subdomain });
      const replies = await Promise.all([
        call(url(), method, `/users/${second.id}`, first, params, host),
        call(url(), method, `/users/${first.id}`, second, params, host),
      ]);
      const won = replies.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      // The loser is refused: it is no longer an owner (or, deactivated, no longer signed in).
      const lost = replies.find((r) => r.status !== 200);
      expect([lost?.status, lost?.body.code]).toEqual(
        lost?.status === 401 ? [401, 'UNAUTHORIZED'] : [400, 'BAD_REQUEST'],
      );
      const survivor = replies[0]?.status === 200 ? first : second;
      const members = await call(url(), 'GET', '/users', survivor, {}, host);
      const owners = (members.body.members as { role: number; is_bot: boolean; is_active: boolean }[]).filter(
        (m) => m.role === 100 && !m.is_bot && m.is_active,
      );
      expect(owners).toHaveLength(1);
    }
  });
});

describe('alert words and profile data', () => {
  let stack: TestStack;
  let admin: TestUser;
  let member: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    admin = await makeUser(stack, { role: 200 });
    member = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  it('alert words: add ignores duplicates in any case, remove is case-insensitive', async () => {
    const added = await call(url(), 'POST', '/users/me/alert_words', member, {
      alert_words: ['Deploy', 'outage', 'deploy'],
    });
    expect(added.status).toBe(200);
    expect(added.body.alert_words).toEqual(['Deploy', 'outage']);
    expectZulipSchema('/users/me/alert_words', 'post', added.body);
    const again = await call(url(), 'POST', '/users/me/alert_words', member, { alert_words: ['OUTAGE'] });
    expect(again.body.alert_words).toEqual(['Deploy', 'outage']);
    const removed = await call(url(), 'DELETE', '/users/me/alert_words', member, { alert_words: ['DEPLOY'] });
    expect(removed.body.alert_words).toEqual(['outage']);
    expectZulipSchema('/users/me/alert_words', 'delete', removed.body);
    const listed = await call(url(), 'GET', '/users/me/alert_words', member);
    expect(listed.body.alert_words).toEqual(['outage']);
  });

  it('alert words longer than 100 characters are 400; missing alert_words is REQUEST_VARIABLE_MISSING', async () => {
    const long = await call(url(), 'POST', '/users/me/alert_words', member, {
      alert_words: ['ok', 'x'.repeat(101)],
    });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'alert_words[1] is too long (limit: 100 characters)',
    });
    const exact = await call(url(), 'POST', '/users/me/alert_words', member, {
      alert_words: ['y'.repeat(100)],
    });
    expect(exact.status).toBe(200);
    const missing = await call(url(), 'POST', '/users/me/alert_words', member);
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'alert_words' });
  });

  it('profile data: set, remove, unknown field and restricted field errors', async () => {
    const open = await call(url(), 'POST', '/realm/profile_fields', admin, {
      name: 'Pronouns',
      field_type: 8,
    });
    const locked = await call(url(), 'POST', '/realm/profile_fields', admin, {
      name: 'Employee id',
      field_type: 1,
      editable_by_user: false,
    });
    const set = await call(url(), 'PATCH', '/users/me/profile_data', member, {
      data: [{ id: open.body.id, value: 'they/them' }],
    });
    expect(set.status).toBe(200);
    expectZulipSuccess(set.body);
    let user = await call(url(), 'GET', `/users/${member.id}`, admin, {
      include_custom_profile_fields: true,
    });
    expect((user.body.user as { profile_data: Record<string, unknown> }).profile_data).toHaveProperty(
      String(open.body.id),
    );
    const removed = await call(url(), 'DELETE', '/users/me/profile_data', member, { data: [open.body.id] });
    expect(removed.status).toBe(200);
    expectZulipSuccess(removed.body);
    user = await call(url(), 'GET', `/users/${member.id}`, admin, { include_custom_profile_fields: true });
    expect((user.body.user as { profile_data: Record<string, unknown> }).profile_data).toEqual({});
    const unknown = await call(url(), 'DELETE', '/users/me/profile_data', member, { data: [424242] });
    expect(unknown.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Field id 424242 not found.' });
    const restricted = await call(url(), 'PATCH', '/users/me/profile_data', member, {
      data: [{ id: locked.body.id, value: 'E-1' }],
    });
    expect(restricted.status).toBe(400);
    expect(restricted.body.msg).toBe(
      'You are not allowed to change this field. Contact an administrator to update it.',
    );
    const byAdmin = await call(url(), 'PATCH', `/users/${member.id}`, admin, {
      profile_data: [{ id: locked.body.id, value: 'E-1' }],
    });
    expect(byAdmin.status).toBe(200);
  });
});

describe('creating users over the API, deleted profiles and hidden addresses', () => {
  let stack: TestStack;
  let owner: TestUser;
  let creator: TestUser;
  let member: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100 });
    creator = await makeUser(stack, { role: 200, canCreateUsers: true });
    member = await makeUser(stack, { role: 400 });
  });
  afterAll(() => stack.stop());

  it('POST /users: an administrator with can_create_users creates an account everyone hears of; date_joined moves to the first login', async () => {
    expect(
      (
        await call(url(), 'POST', '/users', member, {
          email: 'x@example.com',
          password: 'secret1',
          full_name: 'X',
        })
      ).body,
    ).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Must be an organization administrator',
    });
    expect(
      (
        await call(url(), 'POST', '/users', owner, {
          email: 'x@example.com',
          password: 'secret1',
          full_name: 'X',
        })
      ).body,
    ).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'User not authorized to create users',
    });
    const queue = await call(url(), 'POST', '/register', member, { event_types: ['realm_user'] });
    const created = await call(url(), 'POST', '/users', creator, {
      email: 'new.person@example.com',
      password: 'secret-pw',
      full_name: 'New Person',
    });
    expect(created.status).toBe(200);
    expectZulipSchema('/users', 'post', created.body);
    const userId = created.body.user_id as number;
    const events = await call(url(), 'GET', '/events', member, {
      queue_id: queue.body.queue_id,
      last_event_id: -1,
    });
    expectZulipSchema('/events', 'get', events.body);
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'realm_user',
        op: 'add',
        person: expect.objectContaining({ user_id: userId, full_name: 'New Person' }),
      }),
    ]);
    const again = await call(url(), 'POST', '/users', creator, {
      email: 'New.Person@example.com',
      password: 'secret-pw',
      full_name: 'Twin',
    });
    expect(again.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Email is already in use.' });
    expect(
      (
        await call(url(), 'POST', '/users', creator, {
          email: 'short@example.com',
          password: '123',
          full_name: 'S',
        })
      ).status,
    ).toBe(400);

    const joined = async () =>
      ((await call(url(), 'GET', `/users/${userId}`, owner)).body.user as { date_joined: string })
        .date_joined;
    const atCreation = await joined();
    await stack.database.db.query(
      "UPDATE chat.users SET date_joined = date_joined - interval '1 day' WHERE id = :id",
      {
        replacements: { id: userId },
      },
    );
    const login = await call(url(), 'POST', '/fetch_api_key', null, {
      username: 'new.person@example.com',
      password: 'secret-pw',
    });
    expect(login.status).toBe(200);
    const afterLogin = await joined();
    expect(new Date(afterLogin).getTime()).toBeGreaterThanOrEqual(new Date(atCreation).getTime());
    await call(url(), 'POST', '/fetch_api_key', null, {
      username: 'new.person@example.com',
      password: 'secret-pw',
    });
    expect(await joined()).toBe(afterLogin); // only the first login counts
  });

  it('DELETE with delete_profile applies to an already deactivated user and removes the picture', async () => {
    const target = await makeUser(stack, { name: 'Has Face' });
    const picture = async () => {
      const user = (await call(url(), 'GET', `/users/${target.id}`, owner, { client_gravatar: false })).body
        .user as {
        avatar_url: string;
        full_name: string;
      };
      return user;
    };
    const before = await picture();
    expect((await call(url(), 'DELETE', `/users/${target.id}`, owner)).status).toBe(200);
    const removed = await call(url(), 'DELETE', `/users/${target.id}`, owner, {
      actions: { delete_profile: true },
    });
    expect(removed.status).toBe(200);
    const after = await picture();
    expect(after.full_name).toBe('Deleted user');
    expect(after.avatar_url).not.toBe(before.avatar_url);
    const hash = /avatar\/([0-9a-f]{32})/.exec(before.avatar_url)![1]!;
    expect(after.avatar_url).not.toContain(hash);
    // With client_gravatar the client is not left to compute the Gravatar of the address.
    const computed = (await call(url(), 'GET', `/users/${target.id}`, owner)).body.user as {
      avatar_url: string | null;
    };
    expect(computed.avatar_url).toBe(after.avatar_url);
    const nothing = await call(url(), 'DELETE', `/users/${target.id}`, owner);
    expect(nothing.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'User is already deactivated' });
  });

  it('a principal named by a real address the caller may not see is not found; the dummy address is', async () => {
    const hidden = await makeUser(stack, { role: 400, visibility: 3 }); // administrators only
    const byReal = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'lookup' }],
      principals: [hidden.email],
    });
    expect(byReal.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'No such user' });
    const dummy = ((await call(url(), 'GET', `/users/${hidden.id}`, member)).body.user as { email: string })
      .email;
    expect(dummy).toMatch(new RegExp(`^user${hidden.id}@`));
    const byDummy = await call(url(), 'POST', '/users/me/subscriptions', member, {
      subscriptions: [{ name: 'lookup' }],
      principals: [dummy],
    });
    expect(byDummy.body.subscribed).toEqual({ [String(hidden.id)]: ['lookup'] });
    const byAdmin = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'lookup' }],
      principals: [hidden.email],
    });
    expect(byAdmin.status).toBe(200);
  });

  it('a real address the caller may not see names nobody in direct messages, narrows or presence; the dummy address does', async () => {
    const hidden = await makeUser(stack, { role: 400, visibility: 3 }); // administrators only
    const dummy = `user${hidden.id}@localhost`;
    const sent = await call(url(), 'POST', '/messages', hidden, {
      type: 'direct',
      to: JSON.stringify([member.id]),
      content: 'from a hidden address',
    });
    expect(sent.status).toBe(200);
    await call(url(), 'POST', '/users/me/presence', hidden, { status: 'active' });

    const toReal = await call(url(), 'POST', '/messages', member, {
      type: 'direct',
      to: JSON.stringify([hidden.email]),
      content: 'hello?',
    });
    expect(toReal.body).toMatchObject({ result: 'error', msg: `Invalid email '${hidden.email}'` });
    const toDummy = await call(url(), 'POST', '/messages', member, {
      type: 'direct',
      to: JSON.stringify([dummy]),
      content: 'hello',
    });
    expect(toDummy.status).toBe(200);

    const fromSender = async (viewer: TestUser, operand: string) => {
      const found = await call(url(), 'GET', '/messages', viewer, {
        anchor: 'newest',
        num_before: 10,
        num_after: 0,
        narrow: [{ operator: 'sender', operand }],
      });
      // An address the viewer may not see names nobody, as an unknown one does (Zulip's error).
      if (found.status === 400) return found.body.msg;
      return (found.body.messages as { id: number }[]).map((message) => message.id);
    };
    expect(await fromSender(member, hidden.email)).toBe('Invalid narrow operator: unknown user');
    expect(await fromSender(member, 'nobody@example.com')).toBe('Invalid narrow operator: unknown user');
    expect(await fromSender(member, dummy)).toEqual([sent.body.id]);

    const presence = await call(url(), 'GET', `/users/${hidden.email}/presence`, member);
    expect(presence.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'No such user' });
    expect((await call(url(), 'GET', `/users/${dummy}/presence`, member)).status).toBe(200);
    expect((await call(url(), 'GET', `/users/${hidden.email}/presence`, owner)).status).toBe(200);
  });
});
