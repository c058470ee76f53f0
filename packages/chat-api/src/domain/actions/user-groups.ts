import { isDeepStrictEqual } from 'node:util';
import type { Sequelize } from '@muse/core';
import { insufficientPermission, JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { userHasGroupSetting, validateGroupSetting, type GroupSetting } from '../lib/group-settings.ts';
import { GROUP_SETTING_NAMES as STREAM_GROUP_SETTINGS } from '../lib/streams.ts';
import { activeUserIds, isGuest } from '../lib/users.ts';

import {
  type GroupPermission,
  type MembershipChange,
  type NewGroup,
  type UserGroup,
  allSubgroups,
  defaultPermissions,
  directMembers,
  mayManage,
  requireActiveUsers,
  requireGroup,
  requireManage,
  requireSubgroups,
  subgroupsByGroup,
  validateGroupName,
} from '../lib/user-groups.ts';
import { formatGroup } from '../presenters/user-groups.ts';
import { exec, one, rows, type Transaction, transact } from '@muse/core';

// User-group writes that send events: creation, membership, deactivation.

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

export interface GroupChanges {
  name?: string | undefined;
  description?: string | undefined;
  settings: Partial<Record<GroupPermission, { new: GroupSetting; old?: GroupSetting }>>;
}

/**
 * PATCH /user_groups/{id}: rename, describe and change the permission settings of a group its
 * caller manages; each setting's `old`, when given, must be the current value. Every user gets one
 * `user_group` update event with what changed.
 */
export async function updateGroup(actor: Actor, groupId: number, changes: GroupChanges): Promise<void> {
  const { db, realm } = actor;
  await transact(db, async (t) => {
    const group = await requireGroup(actor, groupId, t);
    await requireManage(actor, group);
    const data: Record<string, unknown> = {};
    if (changes.name !== undefined && changes.name !== group.name) {
      const name = validateGroupName(changes.name);
      const taken = await one(
        db,
        'SELECT 1 FROM chat.user_groups WHERE realm_id = :r AND lower(name) = lower(:name) AND id <> :id',
        { r: realm.id, name, id: group.id },
        t,
      );
      if (taken) throw new JsonableError(`User group '${name}' already exists.`);
      data.name = name;
    }
    if (changes.description !== undefined && changes.description !== group.description)
      data.description = changes.description;
    for (const [key, update] of Object.entries(changes.settings) as [
      GroupPermission,
      { new: GroupSetting; old?: GroupSetting } | undefined,
    ][]) {
      if (!update) continue;
      if (update.old !== undefined && !isDeepStrictEqual(update.old, group[key]))
        throw new JsonableError("'old' value does not match the expected value.");
      data[key] = await validateGroupSetting(db, realm.id, key, update.new);
    }
    if (Object.keys(data).length === 0) return;
    const columns = Object.keys(data);
    await exec(
      db,
      `UPDATE chat.user_groups SET ${columns
        .map((c) => (c === 'name' || c === 'description' ? `${c} = :${c}` : `${c} = CAST(:${c} AS jsonb)`))
        .join(', ')} WHERE id = :id`,
      {
        id: group.id,
        ...Object.fromEntries(
          columns.map((c) => [c, c === 'name' || c === 'description' ? data[c] : JSON.stringify(data[c])]),
        ),
      },
      t,
    );
    await sendEvent(db, t, await activeUserIds(db, realm.id, t), {
      type: 'user_group',
      op: 'update',
      group_id: group.id,
      data,
    });
  });
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
