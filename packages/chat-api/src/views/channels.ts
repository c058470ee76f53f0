import { accessibleStream, channelTopics, visibleStreams } from '../domain/lib/channels.ts';
import { canReadHistory, firstMessageIds, streamByName } from '../domain/lib/streams.ts';
import { formatBasicStream } from '../domain/presenters/streams.ts';
import { endpoint } from '../http/endpoint.ts';
import { JsonableError } from '../http/errors.ts';
import { p } from '../http/params.ts';

const channel = { type: 'object', description: "Zulip's BasicChannel." };

/** Channels and their topics, read-only: the lists clients draw. */
export const channelEndpoints = [
  endpoint({
    method: 'get',
    path: '/streams',
    operationId: 'getStreams',
    summary: 'The channels the caller may see, by the include_* filters',
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
    params: { stream_id: p.id() },
    response: { required: ['stream'], properties: { stream: channel } },
    view: async ({ stream_id }, actor) => {
      const stream = await accessibleStream(actor, stream_id);
      const first = (await firstMessageIds(actor.db, [stream.id])).get(stream.id) ?? null;
      return { stream: formatBasicStream(stream, first) };
    },
  }),
  endpoint({
    method: 'get',
    path: '/get_stream_id',
    operationId: 'getStreamId',
    summary: "A channel's id from its name",
    params: { stream: p.string() },
    response: { required: ['stream_id'], properties: { stream_id: { type: 'integer' } } },
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
    view: async ({ stream_id }, actor) => {
      const stream = await accessibleStream(actor, stream_id);
      return {
        topics: await channelTopics(actor, stream, await canReadHistory(actor.db, actor.user, stream)),
      };
    },
  }),
];
