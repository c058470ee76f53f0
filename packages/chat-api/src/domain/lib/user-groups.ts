import type { Sequelize } from '@muse/core';
import { insufficientPermission, JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { SYSTEM_GROUP_MAX_ROLE, userHasGroupSetting, type GroupSetting } from './group-settings.ts';
import { systemGroupIds, type SystemGroupName } from './realms.ts';
import { activeUserIds, isAdmin } from './users.ts';
import { one, rows, type Transaction } from '@muse/core';

// User groups: their rows, the queries that read them, and who may manage them. Writes that send
// events are in actions/user-groups.ts; the wire shape in presenters/user-groups.ts.

export const GROUP_PERMISSIONS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;

export type GroupPermission = (typeof GROUP_PERMISSIONS)[number];

export const MAX_GROUP_NAME_LENGTH = 100;

export interface UserGroup extends Record<GroupPermission, GroupSetting> {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  is_system_group: boolean;
  date_created: Date | null;
  creator_id: number | null;
  deactivated: boolean;
}

export const invalidGroup = () => new JsonableError('Invalid user group');

export async function groupById(db: Sequelize, realmId: number, id: number, t?: Transaction) {
  return one<UserGroup>(
    db,
    'SELECT * FROM chat.user_groups WHERE realm_id = :realmId AND id = :id',
    { realmId, id },
    t,
  );
}

export async function requireGroup(actor: Actor, id: number, t?: Transaction): Promise<UserGroup> {
  const group = await groupById(actor.db, actor.realm.id, id, t);
  if (!group) throw invalidGroup();
  return group;
}

/** Direct members (active users) of every group of the organization; system groups by role. */
export async function membersByGroup(
  db: Sequelize,
  realmId: number,
  groups: UserGroup[],
): Promise<Map<number, number[]>> {
  const direct = await rows<{ group_id: number; user_id: number }>(
    db,
    `SELECT m.group_id, m.user_id FROM chat.user_group_members m JOIN chat.users u ON u.id = m.user_id
     WHERE u.realm_id = :realmId AND u.is_active ORDER BY m.user_id`,
    { realmId },
  );
  const users = await rows<{ id: number; role: number }>(
    db,
    'SELECT id, role FROM chat.users WHERE realm_id = :realmId AND is_active ORDER BY id',
    { realmId },
  );
  const byGroup = new Map<number, number[]>(groups.map((g) => [g.id, []]));
  for (const group of groups.filter((g) => g.is_system_group)) {
    const maxRole = SYSTEM_GROUP_MAX_ROLE[group.name as SystemGroupName];
    byGroup.set(
      group.id,
      users.filter((u) => u.role <= maxRole).map((u) => u.id),
    );
  }
  for (const row of direct) byGroup.get(row.group_id)?.push(row.user_id);
  return byGroup;
}

export async function subgroupsByGroup(db: Sequelize, groupIds: number[]): Promise<Map<number, number[]>> {
  const found = groupIds.length
    ? await rows<{ group_id: number; subgroup_id: number }>(
        db,
        'SELECT group_id, subgroup_id FROM chat.user_group_subgroups WHERE group_id IN (:groupIds) ORDER BY subgroup_id',
        { groupIds },
      )
    : [];
  const byGroup = new Map<number, number[]>(groupIds.map((id) => [id, []]));
  for (const row of found) byGroup.get(row.group_id)?.push(row.subgroup_id);
  return byGroup;
}

/** Administrators manage every group; others through the group's `can_manage_group`. System groups: nobody. */
export async function mayManage(actor: Actor, group: UserGroup): Promise<boolean> {
  if (group.is_system_group) return false;
  if (isAdmin(actor.user)) return true;
  return userHasGroupSetting(actor.db, actor.user, group.can_manage_group);
}

export async function requireManage(actor: Actor, group: UserGroup): Promise<void> {
  if (!(await mayManage(actor, group))) throw insufficientPermission();
}

export function validateGroupName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new JsonableError('User group name cannot be empty.');
  if ([...trimmed].length > MAX_GROUP_NAME_LENGTH)
    throw new JsonableError(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  if (/^(role|user):/i.test(trimmed))
    throw new JsonableError(`User group name cannot start with '${trimmed.split(':')[0]}:'.`);
  return trimmed;
}

export async function requireActiveUsers(actor: Actor, ids: number[], t: Transaction): Promise<void> {
  const active = new Set(await activeUserIds(actor.db, actor.realm.id, t));
  const unknown = ids.find((id) => !active.has(id));
  if (unknown !== undefined) throw new JsonableError(`Invalid user ID: ${unknown}`);
}

export async function requireSubgroups(actor: Actor, ids: number[], t: Transaction): Promise<void> {
  for (const id of ids) {
    const group = await groupById(actor.db, actor.realm.id, id, t);
    if (!group || group.deactivated) throw invalidGroup();
  }
}

/** The permission settings of a new group: Zulip's defaults, the creator managing it. */
export async function defaultPermissions(
  actor: Actor,
  t: Transaction,
): Promise<Record<GroupPermission, GroupSetting>> {
  const system = await systemGroupIds(actor.db, actor.realm.id, t);
  const creator = { direct_members: [actor.user.id], direct_subgroups: [] };
  return {
    can_add_members_group: creator,
    can_join_group: system['role:nobody'],
    can_leave_group: system['role:everyone'],
    can_manage_group: creator,
    can_mention_group: system['role:everyone'],
    can_remove_members_group: system['role:nobody'],
  };
}

export interface NewGroup {
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Partial<Record<GroupPermission, GroupSetting>>;
}

export async function directMembers(db: Sequelize, groupId: number, t?: Transaction): Promise<number[]> {
  return (
    await rows<{ user_id: number }>(
      db,
      'SELECT user_id FROM chat.user_group_members WHERE group_id = :groupId ORDER BY user_id',
      { groupId },
      t,
    )
  ).map((r) => r.user_id);
}

/** Subgroups of the group, recursively (the group itself excluded). */
export async function allSubgroups(db: Sequelize, groupId: number, t?: Transaction): Promise<number[]> {
  const found = await rows<{ id: number }>(
    db,
    `WITH RECURSIVE sub(id) AS (
       SELECT subgroup_id FROM chat.user_group_subgroups WHERE group_id = :groupId
       UNION SELECT s.subgroup_id FROM chat.user_group_subgroups s JOIN sub ON s.group_id = sub.id)
     SELECT id FROM sub ORDER BY id`,
    { groupId },
    t,
  );
  return found.map((r) => r.id);
}

export interface MembershipChange {
  add: number[];
  delete: number[];
  add_subgroups: number[];
  delete_subgroups: number[];
}

/** GET /user_groups/{id}/members: direct members, or every member through subgroups too. */
export async function groupMembers(actor: Actor, groupId: number, directOnly: boolean): Promise<number[]> {
  const group = await requireGroup(actor, groupId);
  const groups = [group];
  if (!directOnly)
    for (const id of await allSubgroups(actor.db, group.id)) {
      const sub = await groupById(actor.db, actor.realm.id, id);
      if (sub) groups.push(sub);
    }
  const byGroup = await membersByGroup(actor.db, actor.realm.id, groups);
  return [...new Set(groups.flatMap((g) => byGroup.get(g.id) ?? []))].sort((a, b) => a - b);
}

/** GET /user_groups/{id}/subgroups. */
export async function groupSubgroups(actor: Actor, groupId: number, directOnly: boolean): Promise<number[]> {
  const group = await requireGroup(actor, groupId);
  return directOnly
    ? ((await subgroupsByGroup(actor.db, [group.id])).get(group.id) ?? [])
    : allSubgroups(actor.db, group.id);
}

/** GET /user_groups/{id}/members/{user_id}. */
export async function isGroupMember(
  actor: Actor,
  groupId: number,
  userId: number,
  directOnly: boolean,
): Promise<boolean> {
  if (
    !(await one(actor.db, 'SELECT 1 FROM chat.users WHERE realm_id = :r AND id = :id', {
      r: actor.realm.id,
      id: userId,
    }))
  )
    throw new JsonableError('No such user');
  return (await groupMembers(actor, groupId, directOnly)).includes(userId);
}
