import { groupSettingSchema, type GroupSetting } from '../domain/lib/group-settings.ts';
import {
  createGroup,
  deactivateGroup,
  updateGroup,
  updateMembership,
} from '../domain/actions/user-groups.ts';
import {
  GROUP_PERMISSIONS,
  groupMembers,
  groupSubgroups,
  isGroupMember,
  type GroupPermission,
} from '../domain/lib/user-groups.ts';
import { listGroups } from '../domain/presenters/user-groups.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { EXAMPLE_USER_GROUP, schema } from './schemas.ts';

const ids = () => p.json<number[]>({ type: 'array', items: { type: 'integer' } });
const setting = () => p.json<GroupSetting>(groupSettingSchema).optional();
/** Zulip's GroupSettingValueUpdate: `{new, old?}`. */
const settingUpdate = () =>
  p
    .json<{ new: GroupSetting; old?: GroupSetting }>({
      type: 'object',
      required: ['new'],
      additionalProperties: false,
      properties: { new: groupSettingSchema, old: groupSettingSchema },
    })
    .optional();
const groupId = () => p.id().describe('The user group');
const idList = { type: 'array', items: { type: 'integer' } };

/** User groups: list, create, members and subgroups, deactivate (Zulip's shapes and rules). */
export const userGroupEndpoints = [
  endpoint({
    method: 'get',
    path: '/user_groups',
    operationId: 'listUserGroups',
    summary: 'Every user group; system groups list their members by role',
    description:
      "Every member may list the organization's groups, by id: each with name, description, its " +
      'direct members (active users) and direct_subgroup_ids, whether it is a system group, and its ' +
      'permission settings (who may manage, join, leave, add and remove members). System groups ' +
      'such as role:administrators hold the users of that role. Deactivated groups only with ' +
      'include_deactivated_groups.',
    params: { include_deactivated_groups: p.bool().default(false) },
    response: {
      required: ['user_groups'],
      properties: { user_groups: { type: 'array', items: schema('UserGroup') } },
    },
    example: {
      params: { include_deactivated_groups: false },
      response: { user_groups: [EXAMPLE_USER_GROUP] },
    },
    view: async (params, actor) => ({
      user_groups: await listGroups(actor.db, actor.realm.id, {
        includeDeactivated: params.include_deactivated_groups,
      }),
    }),
  }),
  endpoint({
    method: 'post',
    path: '/user_groups/create',
    operationId: 'createUserGroup',
    summary: 'Create a group with initial members, subgroups and permission settings',
    description:
      'Members and above may create groups (guests may not). Names are unique (case-insensitive), at ' +
      'most 100 characters, and may not start with "role:" or "user:". Unset permissions take Zulip\'s ' +
      'defaults: the creator manages the group and adds members, everyone may leave and mention it, ' +
      'nobody joins or removes members on their own. Every user gets a user_group add event.',
    params: {
      name: p.string(),
      description: p.string(),
      members: ids(),
      subgroups: ids().default([]),
      can_add_members_group: setting(),
      can_join_group: setting(),
      can_leave_group: setting(),
      can_manage_group: setting(),
      can_mention_group: setting(),
      can_remove_members_group: setting(),
    },
    response: { required: ['group_id'], properties: { group_id: { type: 'integer' } } },
    example: {
      params: { name: 'marketing', description: 'The marketing team', members: [8, 9] },
      response: { group_id: 15 },
    },
    view: async ({ name, description, members, subgroups, ...settings }, actor) => ({
      group_id: await createGroup(actor, { name, description, members, subgroups, settings }),
    }),
  }),
  endpoint({
    method: 'post',
    path: '/user_groups/{user_group_id}/members',
    operationId: 'updateUserGroupMembers',
    summary: 'Add and delete members (and subgroups)',
    description:
      'Administrators and can_manage_group holders may do anything; can_add_members_group adds, ' +
      'can_remove_members_group removes; a user adds themself with can_join_group and removes themself ' +
      'with can_leave_group. System and deactivated groups cannot be changed. Adding a member twice, ' +
      'removing a non-member, an unknown group and a subgroup cycle are 400 BAD_REQUEST.',
    params: {
      user_group_id: groupId(),
      add: ids().default([]),
      delete: ids().default([]),
      add_subgroups: ids().default([]),
      delete_subgroups: ids().default([]),
    },
    example: { params: { user_group_id: 14, add: [10] }, response: {} },
    view: async ({ user_group_id, ...change }, actor) => {
      await updateMembership(actor, user_group_id, change);
    },
  }),
  endpoint({
    method: 'get',
    path: '/user_groups/{user_group_id}/members',
    operationId: 'getUserGroupMembers',
    summary: 'Members, through subgroups too unless direct_member_only',
    description:
      "User ids, ascending: the group's direct members and, unless direct_member_only, the members " +
      'of its subgroups at any depth. Any member may ask. An unknown group is 400 "Invalid user ' +
      'group".',
    params: { user_group_id: groupId(), direct_member_only: p.bool().default(false) },
    response: { required: ['members'], properties: { members: idList } },
    example: { params: { user_group_id: 14 }, response: { members: [8, 9, 10] } },
    view: async (params, actor) => ({
      members: await groupMembers(actor, params.user_group_id, params.direct_member_only),
    }),
  }),
  endpoint({
    method: 'get',
    path: '/user_groups/{user_group_id}/members/{user_id}',
    operationId: 'getIsUserGroupMember',
    summary: 'Whether the user is a member of the group',
    description:
      'True when the user is a direct member, or (unless direct_member_only) a member of one of the ' +
      'group\'s subgroups at any depth. An unknown user is 400 "No such user", an unknown group 400 ' +
      '"Invalid user group".',
    params: { user_group_id: groupId(), user_id: p.id(), direct_member_only: p.bool().default(false) },
    response: {
      required: ['is_user_group_member'],
      properties: { is_user_group_member: { type: 'boolean' } },
    },
    example: { params: { user_group_id: 14, user_id: 9 }, response: { is_user_group_member: true } },
    view: async (params, actor) => ({
      is_user_group_member: await isGroupMember(
        actor,
        params.user_group_id,
        params.user_id,
        params.direct_member_only,
      ),
    }),
  }),
  endpoint({
    method: 'post',
    path: '/user_groups/{user_group_id}/subgroups',
    operationId: 'updateUserGroupSubgroups',
    summary: 'Add and delete subgroups, with the membership rules',
    description:
      "add and delete are JSON lists of group ids. Adding needs the group's managers or " +
      'can_add_members_group, deleting its managers or can_remove_members_group (400 "Insufficient ' +
      'permission"); system and deactivated groups cannot change. A group already a subgroup, one ' +
      'that would make a cycle, or one not a subgroup when deleting is 400 and nothing changes. ' +
      'Every active user gets user_group add_subgroups or remove_subgroups with ' +
      'direct_subgroup_ids.',
    params: { user_group_id: groupId(), add: ids().default([]), delete: ids().default([]) },
    example: { params: { user_group_id: 14, add: [16] }, response: {} },
    view: async (params, actor) => {
      await updateMembership(actor, params.user_group_id, {
        add: [],
        delete: [],
        add_subgroups: params.add,
        delete_subgroups: params.delete,
      });
    },
  }),
  endpoint({
    method: 'get',
    path: '/user_groups/{user_group_id}/subgroups',
    operationId: 'getUserGroupSubgroups',
    summary: 'Subgroups, recursively unless direct_subgroup_only',
    description:
      "Group ids: the group's direct subgroups, or (the default) every subgroup at any depth, " +
      'ascending. Any member may ask. An unknown group is 400 "Invalid user group".',
    params: { user_group_id: groupId(), direct_subgroup_only: p.bool().default(false) },
    response: { required: ['subgroups'], properties: { subgroups: idList } },
    example: { params: { user_group_id: 14 }, response: { subgroups: [16] } },
    view: async (params, actor) => ({
      subgroups: await groupSubgroups(actor, params.user_group_id, params.direct_subgroup_only),
    }),
  }),
  endpoint({
    method: 'post',
    path: '/user_groups/{user_group_id}/deactivate',
    operationId: 'deactivateUserGroup',
    summary: 'Deactivate a group (its managers)',
    description:
      'While a channel permission setting names the group: 400 CANNOT_DEACTIVATE_GROUP_IN_USE with ' +
      'objections [{type: channel, channel_id, settings}].',
    params: { user_group_id: groupId() },
    example: { params: { user_group_id: 17 }, response: {} },
    view: async (params, actor) => {
      await deactivateGroup(actor, params.user_group_id);
    },
  }),
  endpoint({
    method: 'patch',
    path: '/user_groups/{user_group_id}',
    operationId: 'updateUserGroup',
    summary: 'Rename a group, change its description or its permission settings',
    description:
      'Administrators and the holders of can_manage_group; system groups cannot be changed. Each ' +
      'setting is `{new, old?}`; a given `old` that is not the current value is 400. Every user gets a ' +
      'user_group update event with the changed fields.',
    params: {
      user_group_id: groupId(),
      name: p.string().optional(),
      description: p.string().optional(),
      ...(Object.fromEntries(GROUP_PERMISSIONS.map((name) => [name, settingUpdate()])) as Record<
        GroupPermission,
        ReturnType<typeof settingUpdate>
      >),
    },
    example: {
      params: { user_group_id: 14, description: 'Product designers and UX researchers' },
      response: {},
    },
    view: async ({ user_group_id, name, description, ...settings }, actor) => {
      await updateGroup(actor, user_group_id, { name, description, settings });
    },
  }),
];
