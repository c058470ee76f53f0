import { createQueue, deleteQueue, expireIdleQueues } from '../domain/lib/events/registration.ts';
import { getEvents } from '../domain/lib/events/reader.ts';
import { eventNarrow, parseNarrow } from '../domain/lib/narrow.ts';
import { fetchInitialState } from '../domain/presenters/initial-state.ts';
import { presentQueueEvents } from '../domain/presenters/queue-events.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import type { ChatRuntime } from './context.ts';
import { EXAMPLE_MESSAGE, narrowSchema, schema } from './schemas.ts';

const stringList = { type: ['array', 'null'], items: { type: 'string' } };

/** When this process last removed expired queues, per database. */
const lastExpiry = new WeakMap<ChatRuntime['db'], number>();

/** Expired queues are removed lazily, at most every few seconds per process, by whoever registers next. */
async function expireNow(runtime: ChatRuntime): Promise<void> {
  if (Date.now() - (lastExpiry.get(runtime.db) ?? 0) < 5000) return;
  lastExpiry.set(runtime.db, Date.now());
  await expireIdleQueues(runtime.db, runtime.config.MUSE_CHAT_QUEUE_IDLE_MS);
}

const list = (items: object, description?: string) => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});

/** POST /register, GET /events (long-poll) and DELETE /events. */
export const eventEndpoints = [
  endpoint({
    method: 'post',
    path: '/register',
    operationId: 'registerQueue',
    summary: 'Create an event queue and return the initial state',
    description:
      'event_types limits what the queue receives; fetch_event_types (default event_types) limits the ' +
      'state returned: only the keys of the requested types are sent. The queue lives in Postgres and can ' +
      'be read through any API process. The call waits for changes to the caller already being written, ' +
      'so each is in the state or in the queue. A user holds at most MUSE_CHAT_MAX_QUEUES_PER_USER queues: ' +
      'registering another deletes the oldest, whose polls then answer 400 BAD_EVENT_QUEUE_ID. A queue ' +
      'registered with a `narrow` receives only the `message` events matching it (other events as usual); ' +
      'it may use channel, topic, sender, dm, dm-including and is (dm, private, starred, mentioned, alerted, ' +
      'unread, resolved), each possibly negated; another operator is 400 "Operator X not supported."',
    params: {
      event_types: p.json<string[] | null>(stringList).default(null),
      fetch_event_types: p.json<string[] | null>(stringList).default(null),
      apply_markdown: p.bool().default(false),
      client_gravatar: p.bool().default(true),
      all_public_streams: p.bool().default(false),
      include_subscribers: p.bool().default(false),
      slim_presence: p.bool().default(false),
      presence_history_limit_days: p.int().optional(),
      narrow: p.json<unknown[]>(narrowSchema).default([]),
      client_capabilities: p.json<Record<string, unknown>>({ type: 'object' }).optional(),
    },
    response: {
      required: ['queue_id', 'last_event_id', 'zulip_feature_level', 'zulip_version', 'zulip_merge_base'],
      properties: {
        queue_id: { type: 'string' },
        last_event_id: { type: 'integer' },
        zulip_feature_level: { type: 'integer' },
        zulip_version: { type: 'string' },
        zulip_merge_base: { type: 'string' },
        alert_words: list({ type: 'string' }),
        custom_profile_fields: list(schema('ProfileField')),
        scheduled_messages: list(schema('ScheduledMessage')),
        drafts: list(schema('Draft')),
        saved_snippets: list(schema('SavedSnippet')),
        max_message_id: { type: 'integer', description: '-1 when the caller has no messages.' },
        subscriptions: list(schema('Subscription')),
        unsubscribed: list(schema('Subscription')),
        never_subscribed: list({ type: 'object' }),
        realm_users: list(schema('User')),
        realm_non_active_users: list(schema('User')),
        cross_realm_bots: list(schema('User')),
        realm_bots: list(schema('Bot')),
        user_id: { type: 'integer' },
        email: { type: 'string' },
        delivery_email: { type: 'string' },
        full_name: { type: 'string' },
        is_admin: { type: 'boolean' },
        is_owner: { type: 'boolean' },
        is_moderator: { type: 'boolean' },
        is_guest: { type: 'boolean' },
        avatar_source: { type: 'string' },
        avatar_url: { type: 'string' },
        avatar_url_medium: { type: 'string' },
        realm_name: { type: 'string' },
        realm_description: { type: 'string' },
        realm_uri: { type: 'string' },
        realm_url: { type: 'string' },
        realm_date_created: { type: 'integer' },
        realm_enable_spectator_access: { type: 'boolean' },
        realm_message_retention_days: { type: 'integer', description: '-1: unlimited.' },
        realm_new_stream_announcements_stream_id: { type: 'integer', description: '-1: none.' },
        realm_video_chat_provider: {
          type: 'integer',
          description: '0 none, 1 Jitsi, 3 Zoom (user OAuth), 4 BigBlueButton.',
        },
        realm_user_groups: list(schema('UserGroup')),
        realm_default_streams: list({ type: 'integer' }, 'Ids of the default channels new users join.'),
        muted_users: list(
          {
            type: 'object',
            required: ['id', 'timestamp'],
            properties: { id: { type: 'integer' }, timestamp: { type: 'integer' } },
          },
          'Whom the caller muted, with when (UNIX seconds).',
        ),
        user_status: {
          type: 'object',
          description: 'By user id, the status (text, emoji) of the users who set one.',
          additionalProperties: { type: 'object' },
        },
        has_videocall_token: {
          type: 'boolean',
          description: 'Whether the caller connected Zoom (needed before creating a Zoom call).',
        },
        has_zoom_token: { type: 'boolean', description: "Zulip's name of has_videocall_token." },
        server_web_public_streams_enabled: { type: 'boolean' },
        max_stream_name_length: { type: 'integer' },
        max_stream_description_length: { type: 'integer' },
        max_topic_length: { type: 'integer' },
        max_message_length: { type: 'integer' },
        server_timestamp: { type: 'number' },
        unread_msgs: {
          type: 'object',
          description:
            'With message and update_message_flags: unread messages by conversation (muted ones left out of count).',
          required: ['count', 'pms', 'streams', 'huddles', 'mentions', 'old_unreads_missing'],
          properties: {
            count: { type: 'integer' },
            pms: list({ type: 'object' }),
            streams: list({ type: 'object' }),
            huddles: list({ type: 'object' }),
            mentions: list({ type: 'integer' }),
            old_unreads_missing: { type: 'boolean' },
          },
        },
        starred_messages: list({ type: 'integer' }),
        presences: { type: 'object', description: 'By API email, or by user id with slim_presence.' },
        presence_last_update_id: { type: 'integer' },
        muted_topics: list(list({ type: ['string', 'integer'] }), 'Legacy: [channel name, topic, muted at].'),
        user_topics: list({ type: 'object' }),
        realm_emoji: { type: 'object', description: 'Custom emoji: none (uploads are not served).' },
        streams: list({ type: 'object' }),
        user_settings: { type: 'object' },
      },
      additionalProperties: {
        description:
          "Every other key Zulip's /register documents for the requested types (realm_*, server_*, the " +
          'legacy display and notification settings): the values this server applies.',
      },
    },
    example: {
      params: { event_types: ['message', 'reaction', 'update_message'], fetch_event_types: ['message'] },
      response: {
        queue_id: '1d0c7f3e-5b6a-4a7e-9c1d-3f2b8e6a9c10',
        last_event_id: -1,
        zulip_feature_level: 1,
        zulip_version: '0.0',
        zulip_merge_base: '0.0',
        max_message_id: 42,
      },
    },
    view: async (params, actor, req) => {
      await expireNow(actor.runtime);
      // The queue exists before the state is read, so nothing that happens in between is lost.
      const queue = await createQueue(actor.db, actor.user, {
        eventTypes: params.event_types,
        clientGravatar: params.client_gravatar,
        applyMarkdown: params.apply_markdown,
        allPublicStreams: params.all_public_streams,
        narrow: await eventNarrow(actor, parseNarrow(params.narrow)),
        maxQueues: actor.config.MUSE_CHAT_MAX_QUEUES_PER_USER,
      });
      const state = await fetchInitialState(actor, {
        types: params.fetch_event_types ?? params.event_types,
        clientGravatar: params.client_gravatar,
        includeSubscribers: params.include_subscribers,
        includeDeactivatedGroups: params.client_capabilities?.include_deactivated_groups === true,
        origin: { protocol: req.protocol, host: req.headers.host },
        slimPresence: params.slim_presence,
        presenceHistoryDays: params.presence_history_limit_days,
        pushEnabled: actor.runtime.push !== undefined,
      });
      return { queue_id: queue.id, last_event_id: queue.last_event_id, ...state };
    },
  }),
  endpoint({
    method: 'get',
    path: '/events',
    operationId: 'getEvents',
    summary: 'Long-poll a queue for events after last_event_id',
    description:
      'Events up to last_event_id are acknowledged and dropped. Without dont_block the request waits ' +
      'for new events; after MUSE_CHAT_HEARTBEAT_MS it answers a heartbeat event. A queue not polled ' +
      'for MUSE_CHAT_QUEUE_IDLE_MS expires (400 BAD_EVENT_QUEUE_ID with queue_id).',
    params: { queue_id: p.string(), last_event_id: p.int().optional(), dont_block: p.bool().default(false) },
    response: {
      required: ['events', 'queue_id'],
      properties: { events: list(schema('Event')), queue_id: { type: 'string' } },
    },
    example: {
      params: { queue_id: '1d0c7f3e-5b6a-4a7e-9c1d-3f2b8e6a9c10', last_event_id: -1 },
      response: {
        events: [{ type: 'message', id: 0, message: EXAMPLE_MESSAGE, flags: [] }],
        queue_id: '1d0c7f3e-5b6a-4a7e-9c1d-3f2b8e6a9c10',
      },
    },
    view: async (params, actor, req) => {
      const abort = new AbortController();
      // Only a client gone mid-wait aborts: 'close' follows every answer, and an abort builds an error.
      const res = req.res;
      res?.once('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const { runtime } = actor;
      const events = await getEvents(
        actor.db,
        runtime.notifier,
        {
          heartbeatMs: runtime.config.MUSE_CHAT_HEARTBEAT_MS,
          idleMs: runtime.config.MUSE_CHAT_QUEUE_IDLE_MS,
        },
        {
          queueId: params.queue_id,
          userId: actor.user.id,
          realmId: actor.realm.id,
          lastEventId: params.last_event_id,
          dontBlock: params.dont_block,
          signal: abort.signal,
        },
      );
      return {
        events: await presentQueueEvents(actor.db, params.queue_id, events),
        queue_id: params.queue_id,
      };
    },
  }),
  endpoint({
    method: 'delete',
    path: '/events',
    operationId: 'deleteQueue',
    summary: 'Delete an event queue (400 BAD_EVENT_QUEUE_ID with queue_id when unknown)',
    description:
      'A client that is done with a queue (say, on logging out) deletes it so that events stop ' +
      'collecting for it; a long poll waiting on it answers at once with BAD_EVENT_QUEUE_ID. Only ' +
      "the caller's own queues: another's, or an unknown id, is 400 BAD_EVENT_QUEUE_ID. Idle queues " +
      'expire by themselves.',
    params: { queue_id: p.string() },
    example: { params: { queue_id: '1d0c7f3e-5b6a-4a7e-9c1d-3f2b8e6a9c10' }, response: {} },
    view: async ({ queue_id }, actor) => {
      await deleteQueue(actor.db, queue_id, actor.user.id);
    },
  }),
];
