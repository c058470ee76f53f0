import type { Router } from 'express';
import { groupSettingSchema, type GroupSetting } from '../domain/groups.ts';
import {
  createGroup,
  deactivateGroup,
  groupMembers,
  groupSubgroups,
  isGroupMember,
  listGroups,
  updateMembership,
} from '../domain/user-groups.ts';
import { endpoint, p, pathInt } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

const ids = () => p.json<number[]>({ type: 'array', items: { type: 'integer' } });
const setting = () => p.json<GroupSetting>(groupSettingSchema).optional();

/** User groups: list, create, members and subgroups, deactivate (Zulip's shapes and rules). */
export function userGroupRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);

  router.get(
    '/user_groups',
    endpoint({ include_deactivated_groups: p.bool().default(false) }, ctx, async (params, actor) => ({
      user_groups: await listGroups(actor.db, actor.realm.id, {
        includeDeactivated: params.include_deactivated_groups,
      }),
    })),
  );

  router.post(
    '/user_groups/create',
    endpoint(
      {
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
      ctx,
      async ({ name, description, members, subgroups, ...settings }, actor) => ({
        group_id: await createGroup(actor, { name, description, members, subgroups, settings }),
      }),
    ),
  );

  router.post(
    '/user_groups/:group/members',
    endpoint(
      {
        add: ids().default([]),
        delete: ids().default([]),
        add_subgroups: ids().default([]),
        delete_subgroups: ids().default([]),
      },
      ctx,
      async (params, actor, req) => {
        await updateMembership(actor, pathInt(req, 'group'), params);
      },
    ),
  );

  router.get(
    '/user_groups/:group/members',
    endpoint({ direct_member_only: p.bool().default(false) }, ctx, async (params, actor, req) => ({
      members: await groupMembers(actor, pathInt(req, 'group'), params.direct_member_only),
    })),
  );

  router.get(
    '/user_groups/:group/members/:user',
    endpoint({ direct_member_only: p.bool().default(false) }, ctx, async (params, actor, req) => ({
      is_user_group_member: await isGroupMember(
        actor,
        pathInt(req, 'group'),
        pathInt(req, 'user'),
        params.direct_member_only,
      ),
    })),
  );

  router.post(
    '/user_groups/:group/subgroups',
    endpoint({ add: ids().default([]), delete: ids().default([]) }, ctx, async (params, actor, req) => {
      await updateMembership(actor, pathInt(req, 'group'), {
        add: [],
        delete: [],
        add_subgroups: params.add,
        delete_subgroups: params.delete,
      });
    }),
  );

  router.get(
    '/user_groups/:group/subgroups',
    endpoint({ direct_subgroup_only: p.bool().default(false) }, ctx, async (params, actor, req) => ({
      subgroups: await groupSubgroups(actor, pathInt(req, 'group'), params.direct_subgroup_only),
    })),
  );

  router.post(
    '/user_groups/:group/deactivate',
    endpoint({}, ctx, async (_params, actor, req) => {
      await deactivateGroup(actor, pathInt(req, 'group'));
    }),
  );
}
