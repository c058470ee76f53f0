import type { Actor } from '../domain/context.ts';
import {
  deactivateSelf,
  deactivateUser,
  reactivateUser,
  updateUser,
  type DeactivationActions,
} from '../domain/actions/user-admin.ts';
import {
  profileValues,
  userByEmailVisibleTo,
  userById,
  usersInRealm,
  type User,
} from '../domain/lib/users.ts';
import { maxMessageId } from '../domain/lib/messages.ts';
import { createUserByApi } from '../domain/actions/create-user.ts';
import { JsonableError } from '../http/errors.ts';
import { endpoint } from '../http/endpoint.ts';
import { p, type JsonSchema } from '../http/params.ts';
import { profileDataSchema } from './profile-data.ts';
import type { ProfileValue } from '../domain/actions/profile-fields.ts';
import { chatSchemas, EXAMPLE_USER, schema } from './schemas.ts';
import { formatUser } from '../domain/presenters/users.ts';
import { userStatus } from '../domain/lib/user-status.ts';
import { updateStatus } from '../domain/actions/user-status.ts';
import { muteUser, unmuteUser } from '../domain/actions/muted-users.ts';
import { REACTION_TYPES } from '../domain/actions/reactions.ts';

const noSuchUser = () => new JsonableError('No such user');

async function userByEmailFor(actor: Actor, email: string): Promise<User> {
  const target = await userByEmailVisibleTo(actor.db, actor.realm, actor.config, actor.user, email);
  if (!target) throw noSuchUser();
  return target;
}

/** Path `{user_id}` or `{email}`: digits are an id, anything else an address. */
async function targetOf(actor: Actor, raw: string): Promise<User> {
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
];

function pick<T>(record: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(keys.filter((k) => k in record).map((k) => [k, record[k] as T]));
}

const formatOptions = {
  client_gravatar: p.bool().default(true),
  include_custom_profile_fields: p.bool().default(false),
};
const userPath = p
  .string()
  .describe(
    'A user id, a real email (when visible to the caller) or the dummy address user<id>@<realm host>.',
  );

/** User lookup and administration. */
export const userEndpoints = [
  endpoint({
    method: 'get',
    path: '/users',
    operationId: 'listUsers',
    summary: 'All users of the organization',
    description:
      "Every user of the caller's organization, bots and deactivated users included (is_active, " +
      'is_bot say which), by id. Any member may list them; delivery_email is the real address only ' +
      "where the organization's email visibility lets the caller see it, else null. With " +
      'client_gravatar (the default) avatar_url is null for users whose avatar is their Gravatar, so ' +
      'the client computes the Gravatar URL; include_custom_profile_fields adds profile_data.',
    params: formatOptions,
    response: { required: ['members'], properties: { members: { type: 'array', items: schema('User') } } },
    example: { params: { client_gravatar: false }, response: { members: [EXAMPLE_USER] } },
    view: async (params, actor) => {
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
    },
  }),
  endpoint({
    method: 'post',
    path: '/users',
    operationId: 'createUser',
    summary: 'Create a member account (administrators who also hold can_create_users)',
    description:
      'The account joins the default channels and every active user receives a realm_user add event. ' +
      'Its date_joined is the creation time until its first login (POST /fetch_api_key), then that time. ' +
      'An administrator gets the right with `muse-server chat create-user --can-create-users` (Zulip: ' +
      'manage.py change_user_role can_create_users).',
    params: {
      email: p.string().describe('The new user’s email address (unique in the organization).'),
      password: p.string().describe('At least 6 characters.'),
      full_name: p.string(),
    },
    response: { required: ['user_id'], properties: { user_id: { type: 'integer' } } },
    example: {
      params: {
        email: 'katherine@chat.example.com',
        password: 'orbit-1962-glenn',
        full_name: 'Katherine Johnson',
      },
      response: { user_id: 11 },
    },
    view: async (params, actor) => ({ user_id: await createUserByApi(actor, params) }),
  }),
  endpoint({
    method: 'get',
    path: '/users/me',
    operationId: 'getOwnUser',
    summary:
      "The caller's own user: Zulip's user fields at the top level, with max_message_id and profile_data",
    description:
      'What a client shows for the signed-in account: user_id, email, full_name, role, is_admin and ' +
      "the other user fields, the caller's profile_data, and max_message_id, the newest message the " +
      'caller has (for a client to start reading from).',
    response: {
      required: [...OWN_USER_FIELDS.filter((name) => name !== 'profile_data'), 'max_message_id'],
      properties: {
        ...pick(chatSchemas.User.properties as Record<string, JsonSchema>, OWN_USER_FIELDS),
        max_message_id: { type: 'integer' },
      },
    },
    example: {
      response: {
        avatar_url:
          'https://secure.gravatar.com/avatar/42598a2264eafe6226186caff3951b3a?d=identicon&version=1',
        avatar_version: 1,
        email: 'user8@chat.example.com',
        full_name: 'Ada Lovelace',
        is_admin: true,
        is_owner: true,
        role: 100,
        is_guest: false,
        is_bot: false,
        is_active: true,
        timezone: 'Europe/London',
        date_joined: '2025-11-20T08:00:00.000Z',
        user_id: 8,
        delivery_email: 'ada@chat.example.com',
        profile_data: { '1': { value: '+44 20 7946 0018', rendered_value: '<p>+44 20 7946 0018</p>' } },
        max_message_id: 42,
      },
    },
    view: async (_params, actor) => {
      const { user, realm, config, db } = actor;
      const profile = (await profileValues(db, [user.id])).get(user.id) ?? new Map();
      const formatted = formatUser(user, user, realm, config, { clientGravatar: false, profile });
      return {
        ...pick(formatted, OWN_USER_FIELDS),
        max_message_id: await maxMessageId(db, user.id),
      };
    },
  }),
  endpoint({
    method: 'get',
    path: '/users/{user}',
    operationId: 'getUser',
    summary: 'One user; an unknown or hidden one is 400 No such user',
    description:
      'The user by id, by real email (when the caller may see it) or by the API email ' +
      'user<id>@<host>; the same fields as GET /users, with the same client_gravatar and ' +
      'include_custom_profile_fields. An unknown user, or one whose email the caller may not look ' +
      'up, is 400 "No such user".',
    params: { user: userPath, ...formatOptions },
    response: { required: ['user'], properties: { user: schema('User') } },
    example: { params: { user: '9', client_gravatar: false }, response: { user: EXAMPLE_USER } },
    view: async (params, actor) => {
      const target = await targetOf(actor, params.user);
      const profile = params.include_custom_profile_fields
        ? ((await profileValues(actor.db, [target.id])).get(target.id) ?? new Map())
        : undefined;
      return {
        user: formatUser(target, actor.user, actor.realm, actor.config, {
          clientGravatar: params.client_gravatar,
          profile,
        }),
      };
    },
  }),
  endpoint({
    method: 'patch',
    path: '/users/{user}',
    operationId: 'updateUser',
    summary:
      'Administrators change full_name, role, profile_data; owners with the email permission change new_email',
    description:
      'Only owners grant or remove the owner role; the only owner keeps it; a guest is made a member ' +
      'before an administrator. Each rule violation is 400 BAD_REQUEST.',
    params: {
      user: userPath,
      full_name: p.string().optional(),
      role: p.json<number>({ type: 'integer' }).optional(),
      profile_data: p.json<{ id: number; value: ProfileValue }[]>(profileDataSchema).optional(),
      new_email: p.string().optional(),
    },
    example: { params: { user: '9', full_name: 'Grace Brewster Hopper' }, response: {} },
    view: async ({ user, ...changes }, actor) => {
      await updateUser(actor, await targetOf(actor, user), changes);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/users/me',
    operationId: 'deactivateOwnUser',
    summary: "Deactivate the caller's own account, and their bots",
    description:
      'The only organization owner cannot: 400 CANNOT_DEACTIVATE_LAST_USER with is_last_owner and entity. ' +
      "The caller's queues are deleted and their key stops working.",
    example: { response: {} },
    view: async (_params, actor) => {
      await deactivateSelf(actor);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/users/{user}',
    operationId: 'deactivateUser',
    summary: 'Deactivate a user (by id), their bots first',
    description:
      'The only owner cannot be deactivated. The notification comment is written to the server log (no email is sent).',
    params: {
      user: p.id().describe('The user id.'),
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
    example: {
      params: {
        user: 12,
        deactivation_notification_comment: 'Moved to the Lisbon office; new account there.',
      },
      response: {},
    },
    view: async (params, actor) => {
      const target = await userById(actor.db, actor.realm.id, params.user);
      if (!target) throw noSuchUser();
      await deactivateUser(
        actor,
        target,
        params.actions,
        params.deactivation_notification_comment,
        (msg, data) => actor.runtime.logger.info(data, msg),
      );
    },
  }),
  endpoint({
    method: 'post',
    path: '/users/{user_id}/reactivate',
    operationId: 'reactivateUser',
    summary: 'Reactivate a deactivated user (administrators)',
    description:
      'Administrators only (400 "Must be an organization administrator"); the user may log in and ' +
      'use their API key again. An unknown user is 400 "No such user", an active one 400 "User is ' +
      'already active". Every active user of the organization gets realm_user update with is_active ' +
      'true.',
    params: { user_id: p.id() },
    example: { params: { user_id: 12 }, response: {} },
    view: async ({ user_id }, actor) => {
      const target = await userById(actor.db, actor.realm.id, user_id);
      if (!target) throw noSuchUser();
      await reactivateUser(actor, target);
    },
  }),
  endpoint({
    method: 'get',
    path: '/users/{user_id}/status',
    operationId: 'getUserStatus',
    summary: "A user's status: its text and emoji, the parts that are set",
    description:
      "Any member may read any user's status: status_text and the emoji (emoji_name, emoji_code, " +
      'reaction_type), each only when set; an empty object when none is. An unknown user is 400 "No ' +
      'such user". Users set their own with POST /users/me/status.',
    params: { user_id: p.id() },
    response: {
      required: ['status'],
      properties: {
        status: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status_text: { type: 'string' },
            emoji_name: { type: 'string' },
            emoji_code: { type: 'string' },
            reaction_type: { type: 'string', enum: ['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'] },
          },
        },
      },
    },
    example: {
      params: { user_id: 9 },
      response: {
        status: {
          status_text: 'In a meeting',
          emoji_name: 'calendar',
          emoji_code: '1f4c6',
          reaction_type: 'unicode_emoji',
        },
      },
    },
    view: async ({ user_id }, actor) => {
      if (!(await userById(actor.db, actor.realm.id, user_id))) throw noSuchUser();
      return { status: await userStatus(actor.db, user_id) };
    },
  }),
  endpoint({
    method: 'post',
    path: '/users/me/status',
    operationId: 'updateStatus',
    summary: "Set the caller's status text and emoji",
    description:
      'Parts not sent keep their value; an empty status_text or emoji_name clears that part. The text is at ' +
      "most 60 characters; the emoji is checked as a reaction's. Everyone gets a user_status event.",
    params: {
      status_text: p.string().optional(),
      emoji_name: p.string().optional(),
      emoji_code: p.string().optional(),
      reaction_type: p.oneOf(REACTION_TYPES).optional(),
    },
    example: {
      params: {
        status_text: 'On vacation',
        emoji_name: 'palm_tree',
        emoji_code: '1f334',
        reaction_type: 'unicode_emoji',
      },
      response: {},
    },
    view: async (params, actor) => {
      await updateStatus(actor, params);
    },
  }),
  ...(['post', 'delete'] as const).map((method) =>
    endpoint({
      method,
      path: '/users/me/muted_users/{muted_user_id}',
      operationId: method === 'post' ? 'muteUser' : 'unmuteUser',
      summary: method === 'post' ? 'Mute a user' : 'Unmute a user',
      description:
        method === 'post'
          ? "The user's messages the caller has not read become read, and new ones arrive read (clients hide " +
            'them). 400 "Cannot mute self", "No such user", "User already muted". The caller\'s queues get a ' +
            'muted_users event with the whole list.'
          : 'Their messages stay read. 400 "No such user", "User is not muted". The caller\'s queues get a ' +
            'muted_users event.',
      params: { muted_user_id: p.id() },
      example: { params: { muted_user_id: 10 }, response: {} },
      view: async ({ muted_user_id }, actor) => {
        await (method === 'post' ? muteUser : unmuteUser)(actor, muted_user_id);
      },
    }),
  ),
];
