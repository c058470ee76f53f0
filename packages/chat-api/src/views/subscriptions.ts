import type { Actor } from '../domain/context.ts';
import { groupSettingSchema, type GroupSetting } from '../domain/lib/group-settings.ts';
import {
  GROUP_SETTING_NAMES,
  maySubscribe,
  mayUnsubscribeOthers,
  streamByName,
  streamById,
  streamsByNameWithSubscribers,
  TOPICS_POLICIES,
  validateCreationSettings,
  validateStreamDescription,
  validateStreamName,
  type CreationSettings,
  type GroupSettingName,
  type Stream,
} from '../domain/lib/streams.ts';
import { listSubscriptions } from '../domain/presenters/streams.ts';
import {
  ChannelCreatedMeanwhile,
  createStream,
  subscribeUsers,
  unsubscribeUsers,
  updateSubscriptionProperty,
} from '../domain/actions/streams.ts';
import { userById, userByEmailVisibleTo, isGuest, type User } from '../domain/lib/users.ts';
import { insufficientPermission, JsonableError } from '../http/errors.ts';
import { MAX_CHANNELS_PER_REQUEST, MAX_SUBSCRIPTION_CHANGES_PER_REQUEST } from '../domain/limits.ts';
import { sendMessage } from '../domain/actions/message-send.ts';
import { endpoint } from '../http/endpoint.ts';
import { p, Param } from '../http/params.ts';
import { EXAMPLE_SUBSCRIPTION, schema } from './schemas.ts';
import { lockChannels } from '../domain/lib/channel-locks.ts';
import { transact } from '@muse/core';

const principalsSchema = {
  anyOf: [
    { type: 'array', items: { type: 'integer' } },
    { type: 'array', items: { type: 'string' } },
  ],
};
const usersToChannels = (description: string) => ({
  type: 'object',
  description,
  additionalProperties: { type: 'array', items: { type: 'string' } },
});
const groupSetting = () => p.json<GroupSetting>(groupSettingSchema).optional();

/** One request changes at most MAX_SUBSCRIPTION_CHANGES_PER_REQUEST (channel, user) pairs. */
function boundChanges(channels: number, principals: unknown[] | undefined): void {
  const changes = channels * Math.max(1, principals?.length ?? 0);
  if (channels > MAX_CHANNELS_PER_REQUEST || changes > MAX_SUBSCRIPTION_CHANGES_PER_REQUEST) {
    throw new JsonableError(
      `Too many subscription changes in one request (limit: ${MAX_CHANNELS_PER_REQUEST} channels, ${MAX_SUBSCRIPTION_CHANGES_PER_REQUEST} channel-user pairs)`,
    );
  }
}

/** Principals by id or API/real email; an unknown or deactivated one is a 400 (level 208+). */
async function resolvePrincipals(actor: Actor, principals: (number | string)[] | undefined): Promise<User[]> {
  if (!principals || principals.length === 0) return [actor.user];
  const users: User[] = [];
  for (const principal of principals) {
    const user =
      typeof principal === 'number'
        ? await userById(actor.db, actor.realm.id, principal)
        : await userByEmailVisibleTo(actor.db, actor.realm, actor.config, actor.user, principal);
    if (!user || !user.is_active) throw new JsonableError('No such user');
    if (!users.some((u) => u.id === user.id)) users.push(user);
  }
  return users;
}

const byUserId = (entries: [User, string][]) => {
  const result: Record<string, string[]> = {};
  for (const [user, name] of entries) (result[String(user.id)] ??= []).push(name);
  return result;
};

/** The notification bot posts new public channels to the organization's announcements channel. */
async function announceNewChannels(actor: Actor, created: Stream[]): Promise<void> {
  const { realm, db } = actor;
  const visible = created.filter((s) => !s.invite_only);
  if (!visible.length || !realm.notification_bot_id || !realm.new_stream_announcements_stream_id) return;
  const bot = await userById(db, realm.id, realm.notification_bot_id);
  if (!bot?.is_active) return;
  for (const stream of visible) {
    await sendMessage(
      { ...actor, user: bot },
      { kind: 'stream', to: realm.new_stream_announcements_stream_id, topic: 'new channels' },
      `@_**${actor.user.full_name}|${actor.user.id}** created a new channel #**${stream.name}**.`,
    );
  }
}

/** A JSON value, or (leniently, for a bare color like #abcdef) the text itself. */
function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The channel subscription endpoints of `users/me/subscriptions`. */
export const subscriptionEndpoints = [
  endpoint({
    method: 'get',
    path: '/users/me/subscriptions',
    operationId: 'listSubscriptions',
    summary: "The caller's channel subscriptions",
    description:
      "Every channel the caller is subscribed to, with the channel's fields and the caller's " +
      'settings of it (color, is_muted, pin_to_top, the notification settings); with ' +
      "include_subscribers, each channel's subscriber ids too. Only the caller's own subscriptions.",
    params: { include_subscribers: p.bool().default(false).describe("Add each channel's subscriber ids") },
    response: {
      required: ['subscriptions'],
      properties: { subscriptions: { type: 'array', items: schema('Subscription') } },
    },
    example: { params: { include_subscribers: true }, response: { subscriptions: [EXAMPLE_SUBSCRIPTION] } },
    view: async ({ include_subscribers }, actor) => ({
      subscriptions: await listSubscriptions(actor.db, actor.user, include_subscribers),
    }),
  }),
  endpoint({
    method: 'post',
    path: '/users/me/subscriptions',
    operationId: 'subscribe',
    summary: 'Subscribe users to channels, creating missing channels',
    description:
      'Creation settings (invite_only, is_web_public, history_public_to_subscribers, message_retention_days, ' +
      'topics_policy and the group settings) only apply to channels this call creates; message_retention_days ' +
      '(days, realm_default or unlimited) is for owners only. When authorization errors are not fatal, ' +
      'channels the caller may not join are listed in unauthorized. An unknown or deactivated principal is 400.',
    params: {
      subscriptions: p.json<{ name: string; description?: string }[]>({
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, description: { type: 'string' } },
        },
      }),
      principals: p.json<(number | string)[]>(principalsSchema).optional(),
      authorization_errors_fatal: p.bool().default(true),
      announce: p.bool().default(false),
      invite_only: p.bool().default(false),
      is_web_public: p.bool().default(false),
      is_default_stream: p.bool().default(false),
      history_public_to_subscribers: p.bool().optional(),
      message_retention_days: p.string().optional(),
      topics_policy: p.oneOf(TOPICS_POLICIES).optional(),
      can_add_subscribers_group: groupSetting(),
      can_remove_subscribers_group: groupSetting(),
      can_administer_channel_group: groupSetting(),
      can_delete_any_message_group: groupSetting().describe(
        "Who may delete anyone's messages in the channel (administrators always may).",
      ),
      can_delete_own_message_group: groupSetting().describe(
        'Who may delete their own messages in the channel.',
      ),
      can_send_message_group: groupSetting(),
      can_subscribe_group: groupSetting(),
    },
    response: {
      required: ['subscribed', 'already_subscribed'],
      properties: {
        subscribed: usersToChannels('Channels each user (by id) was subscribed to.'),
        already_subscribed: usersToChannels('Channels each user (by id) was already subscribed to.'),
        unauthorized: {
          type: 'array',
          items: { type: 'string' },
          description: 'Channels the caller may not join.',
        },
      },
    },
    example: {
      params: { subscriptions: [{ name: 'research', description: 'Interviews and findings' }] },
      response: { subscribed: { '8': ['research'] }, already_subscribed: {} },
    },
    view: async (params, actor) => {
      const { db, user } = actor;
      boundChanges(params.subscriptions.length, params.principals);
      const requested = params.subscriptions.map((s) => ({
        name: validateStreamName(s.name),
        description: validateStreamDescription(s.description ?? ''),
      }));
      const targets = await resolvePrincipals(actor, params.principals);
      const others = targets.some((t) => t.id !== user.id);
      if (others && isGuest(user)) throw insufficientPermission();
      const groupSettings: Partial<Record<GroupSettingName, GroupSetting>> = {};
      for (const name of GROUP_SETTING_NAMES) {
        if (params[name] !== undefined) groupSettings[name] = params[name];
      }
      const settings: CreationSettings = { ...params, groupSettings };

      // Sort out what exists, what must be created, and what the caller may not touch, before writing.
      const attempt = async () => {
        const found = await streamsByNameWithSubscribers(
          db,
          actor.realm.id,
          requested.map((r) => r.name),
          targets.map((t) => t.id),
        );
        const existing = new Map<string, { stream: Stream; subscribed: Set<number> }>();
        const toCreate: typeof requested = [];
        const unauthorized: string[] = [];
        for (const item of requested) {
          const entry = found.get(item.name);
          if (!entry) {
            if (!toCreate.some((c) => c.name.toLowerCase() === item.name.toLowerCase())) toCreate.push(item);
          } else if (await maySubscribe(db, user, entry.stream, others))
            existing.set(entry.stream.name, entry);
          else unauthorized.push(entry.stream.name);
        }
        if (unauthorized.length && params.authorization_errors_fatal) {
          throw new JsonableError(`Unable to access channel (${unauthorized[0]}).`);
        }
        if (toCreate.length && isGuest(user)) throw insufficientPermission();
        const retention = toCreate.length ? await validateCreationSettings(actor, settings) : null;

        const subscribed: [User, string][] = [];
        const already: [User, string][] = [];
        const created: Stream[] = [];
        // Users subscribed already are answered from the read above; the common re-subscribe writes nothing.
        const missing: [Stream, User[]][] = [];
        for (const { stream, subscribed: ids } of existing.values()) {
          for (const u of targets) if (ids.has(u.id)) already.push([u, stream.name]);
          const absent = targets.filter((u) => !ids.has(u.id));
          if (absent.length) missing.push([stream, absent]);
        }
        if (toCreate.length === 0 && missing.length === 0)
          return { subscribed, already, created, unauthorized };
        // Collected per attempt: the transaction runs again after a deadlock.
        const written = await transact(db, async (t) => {
          // Every channel's lock at once, in the one order (lib/channel-locks.ts).
          await lockChannels(
            db,
            t,
            missing.map(([stream]) => stream.id),
            'exclusive',
          );
          const made: Stream[] = [];
          const added: [User, string][] = [];
          const was: [User, string][] = [];
          for (const item of toCreate) made.push(await createStream(actor, item, settings, retention, t));
          for (const [stream, users] of [...missing, ...made.map((s): [Stream, User[]] => [s, targets])]) {
            const result = await subscribeUsers(db, stream, users, t);
            for (const u of result.added) added.push([u, stream.name]);
            for (const u of result.already) was.push([u, stream.name]);
          }
          return { made, added, was };
        });
        created.push(...written.made);
        subscribed.push(...written.added);
        already.push(...written.was);
        return { subscribed, already, created, unauthorized };
      };
      // A channel created by a concurrent request meanwhile is an existing one the second time round.
      const { subscribed, already, created, unauthorized } = await attempt().catch((error: unknown) => {
        if (error instanceof ChannelCreatedMeanwhile) return attempt();
        throw error;
      });
      if (params.announce) await announceNewChannels(actor, created);
      const response: Record<string, unknown> = {
        subscribed: byUserId(subscribed),
        already_subscribed: byUserId(already),
      };
      if (unauthorized.length) response.unauthorized = unauthorized;
      return response;
    },
  }),
  endpoint({
    method: 'delete',
    path: '/users/me/subscriptions',
    operationId: 'unsubscribe',
    summary: 'Unsubscribe users (principals; default the caller) from channels, by name',
    description:
      'subscriptions is a JSON list of channel names; principals (user ids or emails) default to ' +
      "the caller. Removing others needs an administrator, the channel's " +
      'can_administer_channel_group or its can_remove_subscribers_group (400 "Insufficient ' +
      'permission"). An unknown name is 400 "Channel(s) (…) do not exist" and nothing changes. Each ' +
      "removed user gets subscription remove, the channel's other subscribers peer_remove; " +
      'not_removed names channels the users were not subscribed to.',
    params: {
      subscriptions: p.json<string[]>({ type: 'array', items: { type: 'string' } }),
      principals: p.json<(number | string)[]>(principalsSchema).optional(),
    },
    response: {
      required: ['removed', 'not_removed'],
      properties: {
        removed: { type: 'array', items: { type: 'string' } },
        not_removed: {
          type: 'array',
          items: { type: 'string' },
          description: 'Channels the users were not subscribed to.',
        },
      },
    },
    example: {
      params: { subscriptions: ['random'] },
      response: { removed: ['random'], not_removed: [] },
    },
    view: async (params, actor) => {
      boundChanges(params.subscriptions.length, params.principals);
      const targets = await resolvePrincipals(actor, params.principals);
      const others = targets.some((t) => t.id !== actor.user.id);
      const streams: Stream[] = [];
      for (const name of params.subscriptions) {
        const stream = await streamByName(actor.db, actor.realm.id, name);
        if (!stream) throw new JsonableError(`Channel(s) (${name}) do not exist`);
        if (others && !(await mayUnsubscribeOthers(actor.db, actor.user, stream)))
          throw insufficientPermission();
        streams.push(stream);
      }
      const removed: string[] = [];
      const notRemoved: string[] = [];
      await transact(actor.db, async (t) => {
        removed.length = notRemoved.length = 0; // a deadlocked attempt runs again
        await lockChannels(
          actor.db,
          t,
          streams.map((stream) => stream.id),
          'exclusive',
        );
        for (const stream of streams) {
          const result = await unsubscribeUsers(actor.db, stream, targets, t);
          if (result.removed.length) removed.push(stream.name);
          if (result.notSubscribed.length) notRemoved.push(stream.name);
        }
      });
      return { removed, not_removed: notRemoved };
    },
  }),
  endpoint({
    method: 'post',
    path: '/users/me/subscriptions/properties',
    operationId: 'updateSubscriptionProperties',
    summary: "Change per-channel settings of the caller's subscriptions",
    description:
      'Changing is_muted or its inverse in_home_view produces two subscription update events, one per property.',
    params: {
      subscription_data: p.json<{ stream_id: number; property: string; value: unknown }[]>({
        type: 'array',
        items: {
          type: 'object',
          required: ['stream_id', 'property', 'value'],
          properties: {
            stream_id: { type: 'integer' },
            property: { type: 'string' },
            value: { type: ['boolean', 'string'] },
          },
        },
      }),
    },
    example: {
      params: {
        subscription_data: [
          { stream_id: 2, property: 'pin_to_top', value: true },
          { stream_id: 2, property: 'color', value: '#f5ce6e' },
        ],
      },
      response: {},
    },
    view: async ({ subscription_data }, actor) => {
      await transact(actor.db, async (t) => {
        for (const change of subscription_data) {
          await updateSubscriptionProperty(actor.db, actor.user, actor.realm.id, change, t);
        }
      });
    },
  }),
  endpoint({
    // The single-channel variant; Zulip routes it as PATCH, the spec as POST: both are served.
    method: ['post', 'patch'],
    path: '/users/me/subscriptions/{stream_id}',
    operationId: 'updateSubscriptionProperty',
    summary: "Change one setting (property, value) of one of the caller's subscriptions",
    description:
      'property is one of color (a hex colour such as #c2c2c2), is_muted (or its legacy inverse ' +
      'in_home_view), pin_to_top, desktop_notifications, audible_notifications, push_notifications, ' +
      'email_notifications, wildcard_mentions_notify; value is JSON (true, false) or a bare string. ' +
      'An unknown property, channel or a channel the caller is not subscribed to is 400. The ' +
      "caller's clients get subscription update with property and value (both is_muted and " +
      'in_home_view when either changes).',
    params: {
      stream_id: p.id(),
      property: p.string(),
      value: new Param<unknown>(jsonOrText, {
        type: ['boolean', 'string'],
        description: 'JSON text; a bare string (e.g. a colour) is taken as it is.',
      }),
    },
    example: { params: { stream_id: 2, property: 'is_muted', value: false }, response: {} },
    view: async ({ stream_id: streamId, property, value }, actor) => {
      if (!(await streamById(actor.db, actor.realm.id, streamId)))
        throw new JsonableError('Invalid channel ID');
      await transact(actor.db, (t) =>
        updateSubscriptionProperty(
          actor.db,
          actor.user,
          actor.realm.id,
          { stream_id: streamId, property, value },
          t,
        ),
      );
    },
  }),
];
