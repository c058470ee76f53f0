import type { Sequelize } from '@muse/core';
import { insufficientPermission, JsonableError } from './errors.ts';
import type { Actor } from './context.ts';
import { sendEvent } from './events.ts';
import {
  SYSTEM_GROUP_MAX_ROLE,
  userHasGroupSetting,
  validateGroupSetting,
  type GroupSetting,
} from './groups.ts';
import { GROUP_SETTING_NAMES as STREAM_GROUP_SETTINGS } from './streams.ts';
import { systemGroupIds, type SystemGroupName } from './realms.ts';
import { exec, one, rows, type Transaction } from './sql.ts';
import { activeUserIds, isAdmin, isGuest } from './users.ts';
import { transact } from './lib/transact.ts';

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

const invalidGroup = () => new JsonableError('Invalid user group');

export async function groupById(db: Sequelize, realmId: number, id: number, t?: Transaction) {
  return one<UserGroup>(
    db,
    'SELECT * FROM chat.user_groups WHERE realm_id = :realmId AND id = :id',
    { realmId, id },
    t,
  );
}

async function requireGroup(actor: Actor, id: number, t?: Transaction): Promise<UserGroup> {
  const group = await groupById(actor.db, actor.realm.id, id, t);
  if (!group) throw invalidGroup();
  return group;
}

/** Direct members (active users) of every group of the organization; system groups by role. */
async function membersByGroup(
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

async function subgroupsByGroup(db: Sequelize, groupIds: number[]): Promise<Map<number, number[]>> {
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

function formatGroup(group: UserGroup, members: number[], subgroups: number[]): Record<string, unknown> {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    date_created: group.date_created ? Math.floor(group.date_created.getTime() / 1000) : null,
    creator_id: group.creator_id,
    members,
    direct_subgroup_ids: subgroups,
    is_system_group: group.is_system_group,
    deactivated: group.deactivated,
    ...Object.fromEntries(GROUP_PERMISSIONS.map((name) => [name, group[name]])),
  };
}

/** `GET /user_groups` and `realm_user_groups`: every group in Zulip's shape. */
export async function listGroups(
  db: Sequelize,
  realmId: number,
  options: { includeDeactivated: boolean },
): Promise<Record<string, unknown>[]> {
  const groups = (
    await rows<UserGroup>(db, 'SELECT * FROM chat.user_groups WHERE realm_id = :realmId ORDER BY id', {
      realmId,
    })
  ).filter((g) => options.includeDeactivated || !g.deactivated);
  const members = await membersByGroup(db, realmId, groups);
  const subgroups = await subgroupsByGroup(
    db,
    groups.map((g) => g.id),
  );
  return groups.map((g) => formatGroup(g, members.get(g.id) ?? [], subgroups.get(g.id) ?? []));
}

/** Administrators manage every group; others through the group's `can_manage_group`. System groups: nobody. */
async function mayManage(actor: Actor, group: UserGroup): Promise<boolean> {
  if (group.is_system_group) return false;
  if (isAdmin(actor.user)) return true;
  return userHasGroupSetting(actor.db, actor.user, group.can_manage_group);
}

async function requireManage(actor: Actor, group: UserGroup): Promise<void> {
  if (!(await mayManage(actor, group))) throw insufficientPermission();
}

function validateGroupName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new JsonableError('User group name cannot be empty.');
  if ([...trimmed].length > MAX_GROUP_NAME_LENGTH)
    throw new JsonableError(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  if (/^(role|user):/i.test(trimmed))
    throw new JsonableError(`User group name cannot start with '${trimmed.split(':')[0]}:'.`);
  return trimmed;
}

async function requireActiveUsers(actor: Actor, ids: number[], t: Transaction): Promise<void> {
  const active = new Set(await activeUserIds(actor.db, actor.realm.id, t));
  const unknown = ids.find((id) => !active.has(id));
  if (unknown !== undefined) throw new JsonableError(`Invalid user ID: ${unknown}`);
}

async function requireSubgroups(actor: Actor, ids: number[], t: Transaction): Promise<void> {
  for (const id of ids) {
    const group = await groupById(actor.db, actor.realm.id, id, t);
    if (!group || group.deactivated) throw invalidGroup();
  }
}

/** The permission settings of a new group: Zulip's defaults, the creator managing it. */
async function defaultPermissions(
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

/** POST /user_groups/create: members and above may create groups (Zulip's default `can_create_groups`). */
export async function createGroup(actor: Actor, input: NewGroup): Promise<number> {
  const { db, realm, user } = actor;
  if (isGuest(user)) throw insufficientPermission();
  const name = validateGroupName(input.name);
  return transact(db, async (t) => {
    if (
      await one(
        db,
        'SELECT 1 FROM chat.user_groups WHERE realm_id = :r AND lower(name) = lower(:name)',
        { r: realm.id, name },
        t,
      )
    )
      throw new JsonableError(`User group '${name}' already exists.`);
    const members = [...new Set(input.members)];
    const subgroups = [...new Set(input.subgroups)];
    await requireActiveUsers(actor, members, t);
    await requireSubgroups(actor, subgroups, t);
    const settings = { ...(await defaultPermissions(actor, t)) };
    for (const [key, value] of Object.entries(input.settings) as [
      GroupPermission,
      GroupSetting | undefined,
    ][])
      if (value !== undefined) settings[key] = await validateGroupSetting(db, realm.id, key, value);
    const group = await one<UserGroup>(
      db,
      `INSERT INTO chat.user_groups (realm_id, name, description, date_created, creator_id,
         can_add_members_group, can_join_group, can_leave_group, can_manage_group, can_mention_group, can_remove_members_group)
       VALUES (:realm, :name, :description, now(), :creator, CAST(:add AS jsonb), CAST(:join AS jsonb),
         CAST(:leave AS jsonb), CAST(:manage AS jsonb), CAST(:mention AS jsonb), CAST(:remove AS jsonb))
       RETURNING *`,
      {
        realm: realm.id,
        name,
        description: input.description,
        creator: user.id,
        add: JSON.stringify(settings.can_add_members_group),
        join: JSON.stringify(settings.can_join_group),
        leave: JSON.stringify(settings.can_leave_group),
        manage: JSON.stringify(settings.can_manage_group),
        mention: JSON.stringify(settings.can_mention_group),
        remove: JSON.stringify(settings.can_remove_members_group),
      },
      t,
    );
    if (!group) throw new Error('group insert returned nothing');
    await link(db, 'members', group.id, members, t);
    await link(db, 'subgroups', group.id, subgroups, t);
    await sendEvent(db, t, await activeUserIds(db, realm.id, t), {
      type: 'user_group',
      op: 'add',
      group: formatGroup(group, members, subgroups),
    });
    return group.id;
  });
}

/** A group's two link tables: its direct members and its direct subgroups. */
const LINKS = {
  members: { table: 'chat.user_group_members', column: 'user_id' },
  subgroups: { table: 'chat.user_group_subgroups', column: 'subgroup_id' },
} as const;

async function link(db: Sequelize, kind: keyof typeof LINKS, groupId: number, ids: number[], t: Transaction) {
  const { table, column } = LINKS[kind];
  if (ids.length)
    await exec(
      db,
      `INSERT INTO ${table} (group_id, ${column}) SELECT :groupId, unnest(ARRAY[:ids]::int[])`,
      { groupId, ids },
      t,
    );
}

async function unlink(
  db: Sequelize,
  kind: keyof typeof LINKS,
  groupId: number,
  ids: number[],
  t: Transaction,
) {
  const { table, column } = LINKS[kind];
  if (ids.length)
    await exec(
      db,
      `DELETE FROM ${table} WHERE group_id = :groupId AND ${column} IN (:ids)`,
      { groupId, ids },
      t,
    );
}

async function directMembers(db: Sequelize, groupId: number, t?: Transaction): Promise<number[]> {
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
async function allSubgroups(db: Sequelize, groupId: number, t?: Transaction): Promise<number[]> {
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

/**
 * POST /user_groups/{id}/members (and /subgroups): who may do what follows Zulip — managers
 * anything; `can_add_members_group` adds, `can_remove_members_group` removes; a user may add
 * themself with `can_join_group` and remove themself with `can_leave_group`.
 */
export async function updateMembership(
  actor: Actor,
  groupId: number,
  change: MembershipChange,
): Promise<void> {
  const { db, realm, user } = actor;
  await transact(db, async (t) => {
    const group = await requireGroup(actor, groupId, t);
    if (group.is_system_group) throw new JsonableError('Insufficient permission');
    if (group.deactivated) throw new JsonableError('You can not modify a deactivated user group.');
    const manager = await mayManage(actor, group);
    const holds = (setting: GroupSetting) => userHasGroupSetting(db, user, setting);
    const mayAdd = manager || (await holds(group.can_add_members_group));
    const mayRemove = manager || (await holds(group.can_remove_members_group));
    const onlySelf = (ids: number[]) => ids.length > 0 && ids.every((id) => id === user.id);
    if (change.add.length && !mayAdd && !(onlySelf(change.add) && (await holds(group.can_join_group))))
      throw insufficientPermission();
    if (
      change.delete.length &&
      !mayRemove &&
      !(onlySelf(change.delete) && (await holds(group.can_leave_group)))
    )
      throw insufficientPermission();
    if ((change.add_subgroups.length && !mayAdd) || (change.delete_subgroups.length && !mayRemove))
      throw insufficientPermission();

    const members = new Set(await directMembers(db, group.id, t));
    await requireActiveUsers(actor, change.add, t);
    for (const id of change.add)
      if (members.has(id)) throw new JsonableError(`User ${id} is already a member of this group`);
    for (const id of change.delete)
      if (!members.has(id)) throw new JsonableError(`There is no member '${id}' in this user group`);
    const subgroups = new Set((await subgroupsByGroup(db, [group.id])).get(group.id));
    await requireSubgroups(actor, change.add_subgroups, t);
    for (const id of change.add_subgroups) {
      if (subgroups.has(id)) throw new JsonableError(`User group ${id} is already a subgroup of this group.`);
      if (id === group.id || (await allSubgroups(db, id, t)).includes(group.id))
        throw new JsonableError(
          `User group ${group.id} is already a subgroup of one of the passed subgroups.`,
        );
    }
    for (const id of change.delete_subgroups)
      if (!subgroups.has(id)) throw new JsonableError(`User group ${id} is not a subgroup of this group.`);

    await link(db, 'members', group.id, change.add, t);
    await unlink(db, 'members', group.id, change.delete, t);
    await link(db, 'subgroups', group.id, change.add_subgroups, t);
    await unlink(db, 'subgroups', group.id, change.delete_subgroups, t);

    const audience = await activeUserIds(db, realm.id, t);
    const events: [string, string, number[]][] = [
      ['add_members', 'user_ids', change.add],
      ['remove_members', 'user_ids', change.delete],
      ['add_subgroups', 'direct_subgroup_ids', change.add_subgroups],
      ['remove_subgroups', 'direct_subgroup_ids', change.delete_subgroups],
    ];
    for (const [op, key, ids] of events)
      if (ids.length)
        await sendEvent(db, t, audience, { type: 'user_group', op, group_id: group.id, [key]: ids });
  });
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

/** POST /user_groups/{id}/deactivate: refused while a channel's permission setting names the group. */
export async function deactivateGroup(actor: Actor, groupId: number): Promise<void> {
  const { db, realm } = actor;
  await transact(db, async (t) => {
    const group = await requireGroup(actor, groupId, t);
    await requireManage(actor, group);
    if (group.deactivated) throw new JsonableError('User group is already deactivated.');
    const uses = await rows<{ channel_id: number; setting: string }>(
      db,
      `SELECT s.id AS channel_id, setting.k AS setting FROM chat.streams s,
         jsonb_each(jsonb_build_object(${STREAM_GROUP_SETTINGS.map((n) => `'${n}', s.${n}`).join(', ')})) AS setting(k, v)
       WHERE s.realm_id = :realm AND NOT s.is_archived
         AND (v = to_jsonb(:groupId) OR v->'direct_subgroups' @> to_jsonb(ARRAY[:groupId]))
       ORDER BY s.id, setting.k`,
      { realm: realm.id, groupId: group.id },
      t,
    );
    if (uses.length) {
      const byChannel = Map.groupBy(uses, (u) => u.channel_id);
      throw new JsonableError('Cannot deactivate user group in use.', {
        code: 'CANNOT_DEACTIVATE_GROUP_IN_USE',
        extra: {
          objections: [...byChannel].map(([channel_id, found]) => ({
            type: 'channel',
            channel_id,
            settings: found.map((u) => u.setting),
          })),
        },
      });
    }
    await exec(db, 'UPDATE chat.user_groups SET deactivated = true WHERE id = :id', { id: group.id }, t);
    await sendEvent(db, t, await activeUserIds(db, realm.id, t), {
      type: 'user_group',
      op: 'update',
      group_id: group.id,
      data: { deactivated: true },
    });
  });
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
