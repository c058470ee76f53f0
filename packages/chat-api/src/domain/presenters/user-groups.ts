import type { Sequelize } from '@muse/core';

import { GROUP_PERMISSIONS, type UserGroup, membersByGroup, subgroupsByGroup } from '../lib/user-groups.ts';
import { rows } from '@muse/core';

export function formatGroup(
  group: UserGroup,
  members: number[],
  subgroups: number[],
): Record<string, unknown> {
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
