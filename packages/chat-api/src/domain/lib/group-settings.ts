import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import { ROLE } from '../limits.ts';
import type { SystemGroupName } from './realms.ts';
import type { User } from './users.ts';
import { one, rows } from '@muse/core';

/** A group-setting value: a group id, or an anonymous group of users and subgroups. */
export type GroupSetting = number | { direct_members: number[]; direct_subgroups: number[] };

export const groupSettingSchema = {
  oneOf: [
    { type: 'integer' },
    {
      type: 'object',
      required: ['direct_members', 'direct_subgroups'],
      additionalProperties: false,
      properties: {
        direct_members: { type: 'array', items: { type: 'integer' } },
        direct_subgroups: { type: 'array', items: { type: 'integer' } },
      },
    },
  ],
};

/** Roles that make a user a member of each system group; membership follows the role. */
export const SYSTEM_GROUP_MAX_ROLE: Record<SystemGroupName, number> = {
  'role:internet': ROLE.GUEST,
  'role:everyone': ROLE.GUEST,
  'role:members': ROLE.MEMBER,
  'role:fullmembers': ROLE.MEMBER,
  'role:moderators': ROLE.MODERATOR,
  'role:administrators': ROLE.ADMINISTRATOR,
  'role:owners': ROLE.OWNER,
  'role:nobody': 0,
};

interface GroupRow {
  id: number;
  name: string;
  is_system_group: boolean;
}

/** Whether the user belongs to the group, directly, through a subgroup, or by role. */
async function isMemberOfGroup(
  db: Sequelize,
  user: User,
  groupId: number,
  seen = new Set<number>(),
): Promise<boolean> {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const group = await one<GroupRow>(
    db,
    'SELECT id, name, is_system_group FROM chat.user_groups WHERE id = :groupId',
    {
      groupId,
    },
  );
  if (!group) return false;
  if (group.is_system_group) return user.role <= SYSTEM_GROUP_MAX_ROLE[group.name as SystemGroupName];
  const direct = await one(
    db,
    'SELECT 1 FROM chat.user_group_members WHERE group_id = :groupId AND user_id = :userId',
    {
      groupId,
      userId: user.id,
    },
  );
  if (direct) return true;
  const subgroups = await rows<{ subgroup_id: number }>(
    db,
    'SELECT subgroup_id FROM chat.user_group_subgroups WHERE group_id = :groupId',
    { groupId },
  );
  for (const { subgroup_id } of subgroups)
    if (await isMemberOfGroup(db, user, subgroup_id, seen)) return true;
  return false;
}

export async function userHasGroupSetting(
  db: Sequelize,
  user: User,
  setting: GroupSetting,
): Promise<boolean> {
  if (!user.is_active) return false;
  if (typeof setting === 'number') return isMemberOfGroup(db, user, setting);
  if (setting.direct_members.includes(user.id)) return true;
  for (const groupId of setting.direct_subgroups) if (await isMemberOfGroup(db, user, groupId)) return true;
  return false;
}

/** Checks that every group and user a setting names exists in the organization. */
export async function validateGroupSetting(
  db: Sequelize,
  realmId: number,
  name: string,
  setting: GroupSetting,
): Promise<GroupSetting> {
  const groupIds = typeof setting === 'number' ? [setting] : setting.direct_subgroups;
  const userIds = typeof setting === 'number' ? [] : setting.direct_members;
  if (groupIds.length) {
    const found = await rows(
      db,
      'SELECT id FROM chat.user_groups WHERE realm_id = :realmId AND id IN (:groupIds)',
      {
        realmId,
        groupIds,
      },
    );
    if (found.length !== new Set(groupIds).size) throw new JsonableError(`Invalid user group ID in ${name}`);
  }
  if (userIds.length) {
    const found = await rows(db, 'SELECT id FROM chat.users WHERE realm_id = :realmId AND id IN (:userIds)', {
      realmId,
      userIds,
    });
    if (found.length !== new Set(userIds).size) throw new JsonableError(`Invalid user ID in ${name}`);
  }
  return setting;
}
