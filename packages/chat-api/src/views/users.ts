import type { Request, Router } from 'express';
import type { Actor } from '../domain/context.ts';
import {
  deactivateUser,
  reactivateUser,
  updateUser,
  type DeactivationActions,
} from '../domain/user-admin.ts';
import {
  canSeeRealEmail,
  dummyEmail,
  formatUser,
  profileValues,
  userByAnyEmail,
  userById,
  usersInRealm,
  type User,
} from '../domain/users.ts';
import { maxMessageId } from '../domain/messages.ts';
import { JsonableError } from '../http/errors.ts';
import { endpoint, p, pathInt } from '../http/params.ts';
import { profileDataSchema } from './profile-data.ts';
import type { ProfileValue } from '../domain/profile-fields.ts';
import { authed, type ChatRuntime } from './context.ts';

const noSuchUser = () => new JsonableError('No such user');

/**
 * By email, honouring the target's visibility: the real address finds the user only when the
 * caller may see it; the dummy `user<id>@<host>` address always does.
 */
async function userByEmailFor(actor: Actor, email: string): Promise<User> {
  const target = await userByAnyEmail(actor.db, actor.realm, actor.config, email);
  if (!target) throw noSuchUser();
  const isDummy = email.toLowerCase() === dummyEmail(target.id, actor.realm, actor.config).toLowerCase();
  if (!isDummy && !canSeeRealEmail(actor.user, target)) throw noSuchUser();
  return target;
}

/** Path `{user_id}` or `{email}`: digits are an id, anything else an address. */
async function targetOf(actor: Actor, req: Request): Promise<User> {
  const raw = String(req.params.user);
  if (/^\d+$/.test(raw)) {
    const user = await userById(actor.db, actor.realm.id, Number(raw));
    if (!user) throw noSuchUser();
    return user;
  }
  return userByEmailFor(actor, raw);
}

/** The fields of Zulip's `GET /users/me` answer, a subset of the user record. */
const OWN_USER_FIELDS = [
  'avatar_url',
  'avatar_version',
  'email',
  'full_name',
  'is_admin',
  'is_owner',
  'role',
  'is_guest',
  'is_bot',
  'is_active',
  'timezone',
  'date_joined',
  'user_id',
  'delivery_email',
  'profile_data',
] as const;

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in record).map((k) => [k, record[k]]));
}

const formatOptions = {
  client_gravatar: p.bool().default(true),
  include_custom_profile_fields: p.bool().default(false),
};

/** User lookup and administration. */
export function userRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);

  router.get(
    '/users',
    endpoint(formatOptions, ctx, async (params, actor) => {
      const users = await usersInRealm(actor.db, actor.realm.id);
      const profiles = params.include_custom_profile_fields
        ? await profileValues(
            actor.db,
            users.map((u) => u.id),
          )
        : undefined;
      return {
        members: users.map((u) =>
          formatUser(u, actor.user, actor.realm, actor.config, {
            clientGravatar: params.client_gravatar,
            profile: profiles ? (profiles.get(u.id) ?? new Map()) : undefined,
          }),
        ),
      };
    }),
  );

  router.get(
    '/users/me',
    endpoint({}, ctx, async (_params, actor) => {
      const { user, realm, config, db } = actor;
      const profile = (await profileValues(db, [user.id])).get(user.id) ?? new Map();
      const formatted = formatUser(user, user, realm, config, { clientGravatar: false, profile });
      return {
        ...pick(formatted, OWN_USER_FIELDS),
        max_message_id: await maxMessageId(db, user.id),
      };
    }),
  );

  router.get(
    '/users/:user',
    endpoint(formatOptions, ctx, async (params, actor, req) => {
      const target = await targetOf(actor, req);
      const profile = params.include_custom_profile_fields
        ? ((await profileValues(actor.db, [target.id])).get(target.id) ?? new Map())
        : undefined;
      return {
        user: formatUser(target, actor.user, actor.realm, actor.config, {
          clientGravatar: params.client_gravatar,
          profile,
        }),
      };
    }),
  );

  router.patch(
    '/users/:user',
    endpoint(
      {
        full_name: p.string().optional(),
        role: p.json<number>({ type: 'integer' }).optional(),
        profile_data: p.json<{ id: number; value: ProfileValue }[]>(profileDataSchema).optional(),
        new_email: p.string().optional(),
      },
      ctx,
      async (params, actor, req) => {
        await updateUser(actor, await targetOf(actor, req), params);
      },
    ),
  );

  router.delete(
    '/users/:user',
    endpoint(
      {
        actions: p
          .json<DeactivationActions>({
            type: 'object',
            additionalProperties: false,
            properties: {
              delete_profile: { type: 'boolean' },
              delete_public_channel_messages: { type: 'boolean' },
              delete_private_channel_messages: { type: 'boolean' },
              delete_direct_messages: { type: 'boolean' },
            },
          })
          .default({}),
        deactivation_notification_comment: p.string().optional(),
      },
      ctx,
      async (params, actor, req) => {
        const target = await userById(actor.db, actor.realm.id, pathInt(req, 'user'));
        if (!target) throw noSuchUser();
        await deactivateUser(
          actor,
          target,
          params.actions,
          params.deactivation_notification_comment,
          (msg, data) => runtime.logger.info(data, msg),
        );
      },
    ),
  );

  router.post(
    '/users/:user/reactivate',
    endpoint({}, ctx, async (_params, actor, req) => {
      const target = await userById(actor.db, actor.realm.id, pathInt(req, 'user'));
      if (!target) throw noSuchUser();
      await reactivateUser(actor, target);
    }),
  );
}
