import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, waitForEvents, type TestUser } from '@muse/test-support/chat';

const onlyMembers = (...ids: number[]) => ({ direct_members: ids, direct_subgroups: [] });

describe('per-channel message deletion rights', () => {
  let stack: TestStack;
  let owner: TestUser;
  let member: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100 });
    member = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  const send = async (user: TestUser, channel: string) => {
    const sent = await call(url(), 'POST', '/messages', user, {
      type: 'stream',
      to: channel,
      topic: 'deletions',
      content: `from ${user.id}`,
    });
    expect(sent.status).toBe(200);
    return sent.body.id as number;
  };

  it('creation stores both settings, and DELETE /messages/{id} follows them in that channel', async () => {
    const created = await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'owner deletes' }],
      principals: [owner.id, member.id],
      can_delete_own_message_group: onlyMembers(owner.id),
      can_delete_any_message_group: onlyMembers(member.id),
    });
    expect(created.status).toBe(200);
    const subs = (await call(url(), 'GET', '/users/me/subscriptions', member)).body.subscriptions as Record<
      string,
      unknown
    >[];
    expect(subs.find((s) => s.name === 'owner deletes')).toMatchObject({
      can_delete_own_message_group: onlyMembers(owner.id),
      can_delete_any_message_group: onlyMembers(member.id),
    });
    // The member may delete anyone's message here, their own included (deleting any covers it).
    const ownersMessage = await send(owner, 'owner deletes');
    expect((await call(url(), 'DELETE', `/messages/${ownersMessage}`, member)).status).toBe(200);

    await call(url(), 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'nobody deletes own' }],
      principals: [owner.id, member.id],
      can_delete_own_message_group: onlyMembers(),
    });
    const membersMessage = await send(member, 'nobody deletes own');
    const refused = await call(url(), 'DELETE', `/messages/${membersMessage}`, member);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "You don't have permission to delete this message",
    });
    // Elsewhere the organization's default holds: members delete their own messages.
    const general = await send(member, 'general');
    expect((await call(url(), 'DELETE', `/messages/${general}`, member)).status).toBe(200);
  });
});

describe('PATCH /realm', () => {
  let stack: TestStack;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_WEB_PUBLIC_STREAMS: 'true' });
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100 });
    admin = await makeUser(stack, { role: 200 });
    member = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  it('is for owners only, and refuses an unknown email visibility', async () => {
    for (const user of [admin, member]) {
      const refused = await call(url(), 'PATCH', '/realm', user, { enable_spectator_access: true });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Must be an organization owner' });
    }
    const bad = await call(url(), 'PATCH', '/realm', owner, { email_address_visibility: 9 });
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid email_address_visibility' });
    const state = await call(url(), 'POST', '/register', member, { fetch_event_types: ['realm'] });
    expect(state.body.realm_enable_spectator_access).toBe(false);
  });

  it('spectator access: changes /register, opens web-public channels, and tells everyone once', async () => {
    const queue = await call(url(), 'POST', '/register', member, { event_types: ['realm'] });
    const denied = await call(url(), 'POST', '/users/me/subscriptions', admin, {
      subscriptions: [{ name: 'web before' }],
      is_web_public: true,
    });
    expect(denied.status).toBe(400);
    expect((await call(url(), 'PATCH', '/realm', owner, { enable_spectator_access: true })).status).toBe(200);
    // The same value again changes nothing and sends nothing.
    expect((await call(url(), 'PATCH', '/realm', owner, { enable_spectator_access: true })).status).toBe(200);
    const events = await waitForEvents(
      url(),
      member,
      queue.body.queue_id as string,
      (seen) => seen.length > 0,
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { enable_spectator_access: true },
      }),
    ]);
    const state = await call(url(), 'POST', '/register', member, { fetch_event_types: ['realm'] });
    expect(state.body.realm_enable_spectator_access).toBe(true);
    const created = await call(url(), 'POST', '/users/me/subscriptions', admin, {
      subscriptions: [{ name: 'web after' }],
      is_web_public: true,
    });
    expect(created.status).toBe(200);
  });

  it('email_address_visibility: the visibility new accounts start with', async () => {
    const changed = await call(url(), 'PATCH', '/realm', owner, { email_address_visibility: 3 });
    expect(changed.status).toBe(200);
    const newcomer = await makeUser(stack);
    const seenByMember = await call(url(), 'GET', `/users/${newcomer.id}`, member);
    expect(seenByMember.body.user).toMatchObject({ delivery_email: null });
    const seenByAdmin = await call(url(), 'GET', `/users/${newcomer.id}`, admin);
    expect(seenByAdmin.body.user).toMatchObject({ delivery_email: newcomer.email });
    const settings = await call(url(), 'POST', '/register', newcomer, {
      fetch_event_types: ['user_settings'],
    });
    expect(settings.body.user_settings).toMatchObject({ email_address_visibility: 3 });
  });

  it('can_change_user_emails: lets owners change addresses', async () => {
    const change = () =>
      call(url(), 'PATCH', `/users/${member.id}`, owner, { new_email: `moved-${member.id}@example.com` });
    const before = await change();
    expect(before.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'User not authorized to change email addresses',
    });
    expect((await call(url(), 'PATCH', '/realm', owner, { can_change_user_emails: true })).status).toBe(200);
    expect((await change()).status).toBe(200);
    const moved = await call(url(), 'GET', `/users/${member.id}`, owner);
    expect(moved.body.user).toMatchObject({ delivery_email: `moved-${member.id}@example.com` });
  });
});

describe('an organization on a server without web-public channels', () => {
  let stack: TestStack;
  let owner: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100 });
  });
  afterAll(() => stack.stop());

  it('PATCH /realm cannot turn spectator access on', async () => {
    const refused = await call(url(), 'PATCH', '/realm', owner, { enable_spectator_access: true });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Web-public channels are not enabled on this server.',
    });
    // Turning it off asks nothing of the server.
    expect((await call(url(), 'PATCH', '/realm', owner, { enable_spectator_access: false })).status).toBe(
      200,
    );
  });

  it('is_deleted: true on a user whose profile was deleted, absent on the others', async () => {
    const gone = await makeUser(stack);
    const deactivated = await makeUser(stack);
    expect((await call(url(), 'DELETE', `/users/${deactivated.id}`, owner)).status).toBe(200);
    const deleted = await call(url(), 'DELETE', `/users/${gone.id}`, owner, {
      actions: { delete_profile: true },
    });
    expect(deleted.status).toBe(200);
    const user = (await call(url(), 'GET', `/users/${gone.id}`, owner)).body.user as Record<string, unknown>;
    expect(user).toMatchObject({ is_deleted: true, is_active: false, full_name: 'Deleted user' });
    const members = (await call(url(), 'GET', '/users', owner)).body.members as Record<string, unknown>[];
    expect(members.find((m) => m.user_id === gone.id)).toMatchObject({ is_deleted: true });
    expect(members.find((m) => m.user_id === deactivated.id)).not.toHaveProperty('is_deleted');
    expect(members.find((m) => m.user_id === owner.id)).not.toHaveProperty('is_deleted');
    // Reactivated, the user is no longer a deleted one (the name and picture stay as they were made).
    expect((await call(url(), 'POST', `/users/${gone.id}/reactivate`, owner)).status).toBe(200);
    const back = (await call(url(), 'GET', `/users/${gone.id}`, owner)).body.user as Record<string, unknown>;
    expect(back).toMatchObject({ is_active: true, full_name: 'Deleted user' });
    expect(back).not.toHaveProperty('is_deleted');
  });
});
