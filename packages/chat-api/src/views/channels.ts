import { accessibleStream, channelTopics } from '../domain/lib/channels.ts';
import { visibleStreams } from '../domain/presenters/streams.ts';
import {
  canReadHistory,
  firstMessageIds,
  isSubscribed,
  streamByName,
  subscriberIds,
} from '../domain/lib/streams.ts';
import { isAdmin, userById } from '../domain/lib/users.ts';
import { formatBasicStream } from '../domain/presenters/streams.ts';
import {
  archiveChannel,
  EDITABLE_GROUP_SETTINGS,
  updateChannel,
  type ChannelChanges,
  type GroupSettingUpdate,
} from '../domain/actions/channel-settings.ts';
import { groupSettingSchema } from '../domain/lib/group-settings.ts';
import { endpoint } from '../http/endpoint.ts';
import { adminRequired, JsonableError } from '../http/errors.ts';
import { p } from '../http/params.ts';
import { EXAMPLE_CHANNEL } from './schemas.ts';

const channel = { type: 'object', description: "Zulip's BasicChannel." };

/** Zulip's GroupSettingValueUpdate: `{new, old?}`. */
const groupSettingUpdate = () =>
  p
    .json<GroupSettingUpdate>({
      type: 'object',
      required: ['new'],
      additionalProperties: false,
      properties: { new: groupSettingSchema, old: groupSettingSchema },
    })
    .optional();

/** Channels and their topics: the lists clients draw, and a channel's own settings. */
/** POST /default_streams adds a default channel, DELETE removes one: one change, either way. */
function defaultChannelEndpoint(method: 'post' | 'delete', operationId: string, summary: string) {
  return endpoint({
    method,
    path: '/default_streams',
    operationId,
    summary,
    description:
      'Administrators only; the same change as PATCH /streams/{stream_id} with is_default_stream ' +
      '(a private or archived channel cannot be default). Everyone gets a default_streams event.',
    params: { stream_id: p.int() },
    example: { params: { stream_id: 2 }, response: {} },
    view: async ({ stream_id }, actor) => {
      if (!isAdmin(actor.user)) throw adminRequired();
      await updateChannel(actor, stream_id, { is_default_stream: method === 'post', groupSettings: {} });
    },
  });
}

export const channelEndpoints = [
  endpoint({
    method: 'get',
    path: '/streams',
    operationId: 'getStreams',
    summary: 'The channels the caller may see, by the include_* filters',
    description:
      'By default the public channels (for members; guests get none of them) and those the caller is ' +
      'subscribed to, archived ones left out, sorted by name; include_public, include_subscribed, ' +
      "include_web_public, include_default (the organization's default channels) and exclude_archived " +
      'choose. include_all_active and include_all are for administrators (400 "User not authorized for ' +
      'this query" otherwise). Each channel says whether it is a default channel (is_default).',
    params: {
      include_public: p.bool().default(true),
      include_web_public: p.bool().default(false),
      include_subscribed: p.bool().default(true),
      exclude_archived: p.bool().default(true),
      include_all_active: p.bool().default(false).describe('Administrators only: every channel.'),
      include_all: p.bool().default(false).describe('Administrators only: every channel, archived too.'),
      include_default: p.bool().default(false),
    },
    response: { required: ['streams'], properties: { streams: { type: 'array', items: channel } } },
    example: {
      params: { include_default: true },
      response: { streams: [{ ...EXAMPLE_CHANNEL, is_default: false }] },
    },
    view: async (params, actor) => ({
      streams: await visibleStreams(actor, {
        includePublic: params.include_public,
        includeWebPublic: params.include_web_public,
        includeSubscribed: params.include_subscribed,
        excludeArchived: params.include_all ? false : params.exclude_archived,
        includeAllActive: params.include_all_active || params.include_all,
        includeDefault: params.include_default,
        markDefault: true,
      }),
    }),
  }),
  endpoint({
    method: 'get',
    path: '/streams/{stream_id}',
    operationId: 'getStreamById',
    summary: 'One channel the caller may see',
    description:
      'A public channel for members, or one the caller is subscribed to, or any for an ' +
      'administrator; with the id of its first message (first_message_id). Any other id is 400 ' +
      '"Invalid channel ID".',
    params: { stream_id: p.id() },
    response: { required: ['stream'], properties: { stream: channel } },
    example: { params: { stream_id: 2 }, response: { stream: EXAMPLE_CHANNEL } },
    view: async ({ stream_id }, actor) => {
      const stream = await accessibleStream(actor, stream_id);
      const first = (await firstMessageIds(actor.db, [stream.id])).get(stream.id) ?? null;
      return { stream: formatBasicStream(stream, first) };
    },
  }),
  endpoint({
    method: 'patch',
    path: '/streams/{stream_id}',
    operationId: 'updateStream',
    summary: "Change a channel's name, description, privacy, default status, retention or permissions",
    description:
      "Organization administrators and members of the channel's can_administer_channel_group; privacy and " +
      'access settings of a private channel also need its content (a subscription). is_default_stream is for ' +
      'administrators, message_retention_days for owners. Everything is checked before anything changes; ' +
      'everyone who can see the channel gets a stream update event per property (invite_only with ' +
      'history_public_to_subscribers and is_web_public), and stream delete/create when it hides or shows ' +
      'the channel to them.',
    params: {
      stream_id: p.id(),
      new_name: p.string().optional(),
      description: p.string().optional(),
      is_private: p.bool().optional(),
      is_web_public: p.bool().optional(),
      history_public_to_subscribers: p.bool().optional(),
      is_default_stream: p.bool().optional(),
      message_retention_days: p.string().optional().describe('Days, realm_default or unlimited.'),
      can_add_subscribers_group: groupSettingUpdate(),
      can_remove_subscribers_group: groupSettingUpdate(),
      can_administer_channel_group: groupSettingUpdate(),
      can_send_message_group: groupSettingUpdate(),
      can_subscribe_group: groupSettingUpdate(),
    },
    example: {
      params: { stream_id: 2, description: 'Mock-ups, reviews and the design system' },
      response: {},
    },
    view: async (params, actor) => {
      const groupSettings: ChannelChanges['groupSettings'] = {};
      for (const name of EDITABLE_GROUP_SETTINGS) if (params[name]) groupSettings[name] = params[name];
      await updateChannel(actor, params.stream_id, { ...params, groupSettings });
    },
  }),
  endpoint({
    method: 'delete',
    path: '/streams/{stream_id}',
    operationId: 'archiveStream',
    summary: 'Archive a channel (administrators and its can_administer_channel_group)',
    description:
      'Messages and subscriptions are kept; it stops being a default channel and nobody can post to it. ' +
      'Everyone who could see it gets a stream delete event.',
    params: { stream_id: p.id() },
    example: { params: { stream_id: 5 }, response: {} },
    view: async ({ stream_id }, actor) => {
      await archiveChannel(actor, stream_id);
    },
  }),
  endpoint({
    method: 'get',
    path: '/get_stream_id',
    operationId: 'getStreamId',
    summary: "A channel's id from its name",
    description:
      'The name is compared as channel names are (case-insensitively). A channel that does not ' +
      'exist or that the caller may not see is 400 "Invalid channel name \'…\'".',
    params: { stream: p.string() },
    response: { required: ['stream_id'], properties: { stream_id: { type: 'integer' } } },
    example: { params: { stream: 'design' }, response: { stream_id: 2 } },
    view: async ({ stream }, actor) => {
      const found = await streamByName(actor.db, actor.realm.id, stream);
      const visible =
        found &&
        (await accessibleStream(actor, found.id).then(
          () => true,
          () => false,
        ));
      if (!found || !visible) throw new JsonableError(`Invalid channel name '${stream}'`);
      return { stream_id: found.id };
    },
  }),
  endpoint({
    method: 'get',
    path: '/users/me/{stream_id}/topics',
    operationId: 'getStreamTopics',
    summary: "A channel's topics, newest first, each with its newest message id",
    description:
      "When the caller may read the channel's history, every topic of the channel; otherwise the " +
      'topics of the messages they received. Each with the id of its newest message (max_id), ' +
      'newest first. A channel the caller may not see is 400 "Invalid channel ID".',
    params: { stream_id: p.id(), allow_empty_topic_name: p.bool().default(false) },
    response: {
      required: ['topics'],
      properties: {
        topics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'max_id'],
            properties: { name: { type: 'string' }, max_id: { type: 'integer' } },
          },
        },
      },
    },
    example: {
      params: { stream_id: 2 },
      response: {
        topics: [
          { name: 'launch plan', max_id: 42 },
          { name: 'logo', max_id: 37 },
        ],
      },
    },
    view: async ({ stream_id }, actor) => {
      const stream = await accessibleStream(actor, stream_id);
      return {
        topics: await channelTopics(actor, stream, await canReadHistory(actor.db, actor.user, stream)),
      };
    },
  }),
  endpoint({
    method: 'get',
    path: '/streams/{stream_id}/members',
    operationId: 'getSubscribers',
    summary: "A channel's subscribers (active users), by id",
    description: 'A channel the caller may not see is 400 "Invalid channel ID", whether it exists or not.',
    params: { stream_id: p.id() },
    response: {
      required: ['subscribers'],
      properties: { subscribers: { type: 'array', items: { type: 'integer' } } },
    },
    example: { params: { stream_id: 2 }, response: { subscribers: [8, 9] } },
    view: async ({ stream_id }, actor) => {
      const stream = await accessibleStream(actor, stream_id);
      return { subscribers: (await subscriberIds(actor.db, [stream.id])).get(stream.id) ?? [] };
    },
  }),
  endpoint({
    method: 'get',
    path: '/users/{user_id}/subscriptions/{stream_id}',
    operationId: 'getSubscriptionStatus',
    summary: 'Whether a user is subscribed to a channel',
    description:
      'An unknown user is 400 "No such user"; a channel the caller may not see is 400 "Invalid channel ID".',
    params: { user_id: p.id(), stream_id: p.id() },
    response: { required: ['is_subscribed'], properties: { is_subscribed: { type: 'boolean' } } },
    example: { params: { user_id: 9, stream_id: 2 }, response: { is_subscribed: true } },
    view: async ({ user_id, stream_id }, actor) => {
      if (!(await userById(actor.db, actor.realm.id, user_id))) throw new JsonableError('No such user');
      const stream = await accessibleStream(actor, stream_id);
      return { is_subscribed: await isSubscribed(actor.db, user_id, stream.id) };
    },
  }),
  defaultChannelEndpoint('post', 'addDefaultStream', 'Make a channel a default channel (new users join it)'),
  defaultChannelEndpoint('delete', 'removeDefaultStream', 'Make a channel no longer a default channel'),
];
