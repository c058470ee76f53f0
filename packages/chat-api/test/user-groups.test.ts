import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema, expectZulipSuccess } from './zulip-schema.ts';

describe('user groups', () => {
  let stack: TestStack;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let guest: TestUser;
  const url = () => stack.chatUrl;
  const groupId = async (name: string) => {
    const { body } = await call(url(), 'GET', '/user_groups', admin, { include_deactivated_groups: true });
    return (body.user_groups as { id: number; name: string }[]).find((g) => g.name === name)?.id ?? -1;
  };
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    admin = await makeUser(stack, { role: 200 });
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    guest = await makeUser(stack, { role: 600 });
  });
  afterAll(() => stack.stop());

  it('GET /user_groups lists the system groups with their role members, in the reference shape', async () => {
    const { status, body } = await call(url(), 'GET', '/user_groups', alice);
    expect(status).toBe(200);
    expectZulipSchema('/user_groups', 'get', body);
    const groups = body.user_groups as { name: string; members: number[]; is_system_group: boolean }[];
    const admins = groups.find((g) => g.name === 'role:administrators');
    expect(admins).toMatchObject({ is_system_group: true });
    expect(admins?.members).toContain(admin.id);
    expect(admins?.members).not.toContain(alice.id);
  });

  it('a member creates a group; everyone gets a user_group add event; the creator manages it', async () => {
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['user_group'] });
    const { status, body } = await call(url(), 'POST', '/user_groups/create', alice, {
      name: 'backend',
      description: 'Server people',
      members: [alice.id],
    });
    expect(status).toBe(200);
    expectZulipSchema('/user_groups/create', 'post', body);
    const events = await call(url(), 'GET', '/events', bob, {
      queue_id: queue.body.queue_id,
      dont_block: true,
    });
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'user_group',
        op: 'add',
        group: expect.objectContaining({
          id: body.group_id,
          name: 'backend',
          members: [alice.id],
          creator_id: alice.id,
        }),
      }),
    ]);
    const added = await call(url(), 'POST', `/user_groups/${body.group_id}/members`, alice, {
      add: [bob.id],
    });
    expectZulipSuccess(added.body);
    const members = await call(url(), 'GET', `/user_groups/${body.group_id}/members`, bob);
    expect(members.body.members).toEqual([alice.id, bob.id].sort((a, b) => a - b));
    expectZulipSchema('/user_groups/{user_group_id}/members', 'get', members.body);
    const check = await call(url(), 'GET', `/user_groups/${body.group_id}/members/${bob.id}`, bob);
    expect(check.body.is_user_group_member).toBe(true);
    expectZulipSchema('/user_groups/{user_group_id}/members/{user_id}', 'get', check.body);
  });

  it('creation errors: duplicate name, reserved prefix, unknown user, guest, missing argument', async () => {
    const dup = await call(url(), 'POST', '/user_groups/create', alice, {
      name: 'Backend',
      description: '',
      members: [],
    });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: 'BAD_REQUEST', msg: "User group 'Backend' already exists." });
    const reserved = await call(url(), 'POST', '/user_groups/create', alice, {
      name: 'role:x',
      description: '',
      members: [],
    });
    expect(reserved.body.msg).toBe("User group name cannot start with 'role:'.");
    const unknown = await call(url(), 'POST', '/user_groups/create', alice, {
      name: 'ghosts',
      description: '',
      members: [999999],
    });
    expect(unknown.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid user ID: 999999' });
    const byGuest = await call(url(), 'POST', '/user_groups/create', guest, {
      name: 'guests',
      description: '',
      members: [],
    });
    expect(byGuest.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
    const missing = await call(url(), 'POST', '/user_groups/create', alice, { name: 'x', description: '' });
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'members' });
    expect(await groupId('ghosts')).toBe(-1); // nothing half-written
  });

  it('membership rules: non-managers cannot add others, may leave; duplicates and non-members are errors', async () => {
    const id = await groupId('backend');
    const carol = await makeUser(stack);
    const byBob = await call(url(), 'POST', `/user_groups/${id}/members`, bob, { add: [carol.id] });
    expect(byBob.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
    const again = await call(url(), 'POST', `/user_groups/${id}/members`, alice, { add: [bob.id] });
    expect(again.body.msg).toBe(`User ${bob.id} is already a member of this group`);
    const notMember = await call(url(), 'POST', `/user_groups/${id}/members`, alice, { delete: [carol.id] });
    expect(notMember.body.msg).toBe(`There is no member '${carol.id}' in this user group`);
    const leave = await call(url(), 'POST', `/user_groups/${id}/members`, bob, { delete: [bob.id] });
    expect(leave.status).toBe(200);
    const system = await groupId('role:members');
    const toSystem = await call(url(), 'POST', `/user_groups/${system}/members`, admin, { add: [carol.id] });
    expect(toSystem.body.msg).toBe('Insufficient permission');
    const unknown = await call(url(), 'GET', '/user_groups/999999/members', alice);
    expect(unknown.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid user group' });
  });

  it('subgroups: add, list recursively, refuse cycles', async () => {
    const outer = await groupId('backend');
    const inner = (
      await call(url(), 'POST', '/user_groups/create', alice, {
        name: 'db',
        description: '',
        members: [bob.id],
      })
    ).body.group_id as number;
    const add = await call(url(), 'POST', `/user_groups/${outer}/subgroups`, alice, { add: [inner] });
    expect(add.status).toBe(200);
    const subs = await call(url(), 'GET', `/user_groups/${outer}/subgroups`, alice);
    expect(subs.body.subgroups).toEqual([inner]);
    expectZulipSchema('/user_groups/{user_group_id}/subgroups', 'get', subs.body);
    const all = await call(url(), 'GET', `/user_groups/${outer}/members`, alice);
    expect(all.body.members).toContain(bob.id);
    const direct = await call(url(), 'GET', `/user_groups/${outer}/members`, alice, {
      direct_member_only: true,
    });
    expect(direct.body.members).not.toContain(bob.id);
    const cycle = await call(url(), 'POST', `/user_groups/${inner}/subgroups`, alice, { add: [outer] });
    expect(cycle.body.msg).toBe(`User group ${inner} is already a subgroup of one of the passed subgroups.`);
  });

  it('deactivate: refused while a channel setting uses the group; otherwise hidden from the list', async () => {
    const used = (
      await call(url(), 'POST', '/user_groups/create', alice, {
        name: 'posters',
        description: '',
        members: [alice.id],
      })
    ).body.group_id as number;
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'announcements' }],
      can_send_message_group: used,
    });
    const refused = await call(url(), 'POST', `/user_groups/${used}/deactivate`, alice);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'CANNOT_DEACTIVATE_GROUP_IN_USE' });
    const notManager = await call(url(), 'POST', `/user_groups/${await groupId('db')}/deactivate`, bob);
    expect(notManager.body.msg).toBe('Insufficient permission');
    const db = await groupId('db');
    const done = await call(url(), 'POST', `/user_groups/${db}/deactivate`, alice);
    expectZulipSuccess(done.body);
    const listed = await call(url(), 'GET', '/user_groups', alice);
    expect((listed.body.user_groups as { id: number }[]).map((g) => g.id)).not.toContain(db);
  });
});
