import { groupSettingSchema } from '../domain/lib/group-settings.ts';
import { GROUP_SETTING_NAMES, TOPICS_POLICIES } from '../domain/lib/streams.ts';
import { GROUP_PERMISSIONS } from '../domain/lib/user-groups.ts';
import type { JsonSchema } from '../http/params.ts';

/**
 * The records several answers share, as Zulip presents them (field names, types and nullability
 * follow Zulip's API). They become `components.schemas` of the served document; endpoints refer
 * to them with `schema('User')`.
 */
const int = { type: 'integer' };
const str = { type: 'string' };
const bool = { type: 'boolean' };
const nullableInt = { type: ['integer', 'null'] };
const nullableStr = { type: ['string', 'null'] };
const list = (items: JsonSchema) => ({ type: 'array', items });
/** Every listed property present, nothing else. */
const closed = (properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
  properties,
  additionalProperties: false,
});

/**
 * A narrow (GET /messages, POST /register): a list of terms, each `{operator, operand, negated?}`
 * or Zulip's legacy pair `[operator, operand]`. Inline, not a component: it also validates requests.
 */
export const narrowSchema: JsonSchema = {
  type: 'array',
  items: {
    anyOf: [
      {
        type: 'object',
        required: ['operator', 'operand'],
        properties: {
          operator: { type: 'string', description: 'e.g. channel, topic, sender, is, has, dm, search' },
          operand: { description: 'a name, an id, or a list of ids (dm)' },
          negated: { type: 'boolean' },
        },
      },
      { type: 'array', items: {}, minItems: 2, maxItems: 2, description: 'legacy form: [operator, operand]' },
    ],
  },
};

export const schema = (name: keyof typeof chatSchemas) => ({ $ref: `#/components/schemas/${name}` });

const basicChannel = {
  stream_id: int,
  name: str,
  description: str,
  rendered_description: str,
  date_created: { ...int, description: 'UNIX timestamp (seconds).' },
  creator_id: nullableInt,
  invite_only: bool,
  is_web_public: bool,
  is_announcement_only: bool,
  stream_post_policy: int,
  history_public_to_subscribers: bool,
  first_message_id: nullableInt,
  message_retention_days: { ...nullableInt, description: 'Days; null: the organization default.' },
  is_archived: bool,
  is_recently_active: bool,
  stream_weekly_traffic: nullableInt,
  topics_policy: { type: 'string', enum: TOPICS_POLICIES },
  ...Object.fromEntries(GROUP_SETTING_NAMES.map((name) => [name, groupSettingSchema])),
};

export const chatSchemas = {
  IgnoredParameters: {
    ...list(str),
    description: 'Request parameters this endpoint does not know; they were ignored.',
  },
  User: closed(
    {
      user_id: int,
      delivery_email: {
        ...nullableStr,
        description: 'The real address; null when the caller may not see it.',
      },
      email: { ...str, description: 'The API email (a dummy address when the real one is hidden).' },
      full_name: str,
      date_joined: { ...str, format: 'date-time' },
      is_active: bool,
      is_deleted: { type: 'boolean', enum: [true], description: 'Present only for a deleted profile.' },
      is_owner: bool,
      is_admin: bool,
      is_guest: bool,
      is_bot: bool,
      bot_type: nullableInt,
      bot_owner_id: { ...nullableInt, description: 'Bots only.' },
      role: { type: 'integer', enum: [100, 200, 300, 400, 600] },
      timezone: str,
      avatar_url: { ...nullableStr, description: 'null when the client computes it (client_gravatar).' },
      avatar_version: int,
      is_imported_stub: bool,
      profile_data: {
        type: 'object',
        description: 'Custom profile values by field id (include_custom_profile_fields; not for bots).',
        additionalProperties: closed({ value: str, rendered_value: str }, ['rendered_value']),
      },
    },
    ['bot_owner_id', 'profile_data', 'is_deleted'],
  ),
  Subscription: closed(
    {
      ...basicChannel,
      color: str,
      desktop_notifications: { type: ['boolean', 'null'] },
      email_notifications: { type: ['boolean', 'null'] },
      wildcard_mentions_notify: { type: ['boolean', 'null'] },
      push_notifications: { type: ['boolean', 'null'] },
      audible_notifications: { type: ['boolean', 'null'] },
      pin_to_top: bool,
      is_muted: bool,
      in_home_view: { ...bool, description: 'The inverse of is_muted (deprecated by Zulip).' },
      subscribers: { ...list(int), description: 'With include_subscribers only.' },
    },
    ['subscribers'],
  ),
  ProfileField: closed({
    id: int,
    name: str,
    hint: str,
    type: {
      ...int,
      description:
        'Field type: 1 short text, 2 long text, 3 select, 4 date, 5 link, 6 users, 7 external account, 8 pronouns.',
    },
    field_data: { ...str, description: 'JSON text; for a select field the choices by id: {text, order}.' },
    order: int,
    display_in_profile_summary: bool,
    required: bool,
    editable_by_user: bool,
  }),
  Message: closed(
    {
      id: int,
      sender_id: int,
      sender_full_name: str,
      sender_email: str,
      sender_realm_str: str,
      avatar_url: nullableStr,
      client: str,
      content: {
        ...str,
        description: 'Rendered HTML, or Markdown when the client asked for it (apply_markdown=false).',
      },
      content_type: { type: 'string', enum: ['text/html', 'text/x-markdown'] },
      is_me_message: bool,
      reactions: list(
        closed({
          emoji_name: str,
          emoji_code: str,
          reaction_type: { type: 'string', enum: ['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'] },
          user_id: int,
        }),
      ),
      submessages: list({ type: 'object' }),
      subject: { ...str, description: 'The topic.' },
      topic_links: list({ type: 'object' }),
      timestamp: int,
      recipient_id: int,
      type: { type: 'string', enum: ['stream', 'private'] },
      stream_id: { ...int, description: 'Channel messages only.' },
      display_recipient: {
        description: 'The channel name, or the direct message recipients.',
        anyOf: [str, list(closed({ id: int, email: str, full_name: str, is_mirror_dummy: bool }))],
      },
      flags: { ...list(str), description: "The caller's flags (read, starred, mentioned, ...)." },
      last_edit_timestamp: { ...int, description: 'When the content was last edited.' },
      last_moved_timestamp: { ...int, description: 'When it was last moved to another topic or channel.' },
      match_content: {
        ...str,
        description: 'With a search: the rendered content, found words in <span class="highlight">.',
      },
      match_subject: {
        ...str,
        description: 'With a search: the HTML-escaped topic, found words highlighted.',
      },
    },
    ['stream_id', 'flags', 'last_edit_timestamp', 'last_moved_timestamp', 'match_content', 'match_subject'],
  ),
  ScheduledMessage: closed(
    {
      scheduled_message_id: { ...int, description: 'Not the id the message will have once sent.' },
      type: { type: 'string', enum: ['stream', 'private'] },
      to: { description: 'The channel id, or the user ids.', anyOf: [int, list(int)] },
      topic: { ...str, description: 'Channel messages only.' },
      content: { ...str, description: 'Markdown.' },
      rendered_content: str,
      scheduled_delivery_timestamp: { ...int, description: 'UNIX timestamp (seconds).' },
      failed: { ...bool, description: 'Delivery was tried and refused; a new time schedules it again.' },
    },
    ['topic'],
  ),
  Draft: closed(
    {
      id: int,
      type: { type: 'string', enum: ['', 'stream', 'private'] },
      to: { ...list(int), description: 'One channel id, user ids, or nothing (unaddressed).' },
      topic: str,
      content: str,
      timestamp: { ...int, description: 'Last edit, UNIX timestamp (seconds).' },
    },
    ['id', 'timestamp'],
  ),
  SavedSnippet: closed({
    id: int,
    title: str,
    content: { ...str, description: 'Markdown.' },
    date_created: { ...int, description: 'UNIX timestamp (seconds).' },
  }),
  UserGroup: closed({
    id: int,
    name: str,
    description: str,
    date_created: { ...nullableInt, description: 'UNIX timestamp; null for system groups.' },
    creator_id: nullableInt,
    members: {
      ...list(int),
      description: 'Direct members (system groups: every user whose role qualifies).',
    },
    direct_subgroup_ids: list(int),
    is_system_group: bool,
    deactivated: bool,
    ...Object.fromEntries(GROUP_PERMISSIONS.map((name) => [name, groupSettingSchema])),
  }),
  Bot: closed(
    {
      email: str,
      user_id: int,
      full_name: str,
      bot_type: int,
      is_active: bool,
      api_key: str,
      default_sending_stream: { ...nullableStr, description: 'Always null: default channels are not kept.' },
      default_events_register_stream: nullableStr,
      default_all_public_streams: bool,
      avatar_url: str,
      services: list(closed({ base_url: str, interface: int, token: str })),
      owner_id: nullableInt,
    },
    [],
  ),
  Event: {
    type: 'object',
    description: 'One event; its other fields depend on type (and op), as in Zulip.',
    required: ['type', 'id'],
    properties: { type: str, id: int, op: str },
    additionalProperties: true,
  },
} satisfies Record<string, JsonSchema>;

/** A channel message as GET /messages and the message event present it: the examples' message. */
export const EXAMPLE_MESSAGE = {
  id: 42,
  sender_id: 8,
  sender_full_name: 'Ada Lovelace',
  sender_email: 'user8@chat.example.com',
  sender_realm_str: '',
  avatar_url: null,
  client: 'ZulipPython',
  content: '<p>The mock-ups are ready for review.</p>',
  content_type: 'text/html',
  is_me_message: false,
  reactions: [],
  submessages: [],
  subject: 'launch plan',
  topic_links: [],
  timestamp: 1764300000,
  recipient_id: 3,
  type: 'stream',
  stream_id: 2,
  display_recipient: 'design',
  flags: ['read'],
};

/** The examples' channel `design`, as GET /streams/{stream_id} presents it (Zulip's BasicChannel). */
export const EXAMPLE_CHANNEL = {
  stream_id: 2,
  name: 'design',
  description: 'Mock-ups, reviews and the design system',
  rendered_description: '<p>Mock-ups, reviews and the design system</p>',
  date_created: 1764200000,
  creator_id: 8,
  invite_only: false,
  is_web_public: false,
  is_announcement_only: false,
  stream_post_policy: 1,
  history_public_to_subscribers: true,
  first_message_id: 21,
  message_retention_days: null,
  is_archived: false,
  is_recently_active: true,
  stream_weekly_traffic: null,
  topics_policy: 'inherit',
  can_add_subscribers_group: 8,
  can_remove_subscribers_group: 6,
  can_administer_channel_group: { direct_members: [8], direct_subgroups: [] },
  can_delete_any_message_group: 6,
  can_delete_own_message_group: 2,
  can_send_message_group: 2,
  can_subscribe_group: 8,
};

/** The caller's subscription to `design`, with its subscribers (include_subscribers). */
export const EXAMPLE_SUBSCRIPTION = {
  ...EXAMPLE_CHANNEL,
  color: '#fae589',
  desktop_notifications: null,
  email_notifications: null,
  wildcard_mentions_notify: null,
  push_notifications: null,
  audible_notifications: null,
  pin_to_top: false,
  is_muted: false,
  in_home_view: true,
  subscribers: [8, 9],
};

/** The examples' member Grace, as GET /users/{user_id} presents her to an administrator. */
export const EXAMPLE_USER = {
  user_id: 9,
  delivery_email: 'grace@chat.example.com',
  email: 'user9@chat.example.com',
  full_name: 'Grace Hopper',
  date_joined: '2025-11-27T09:30:00.000Z',
  is_active: true,
  is_owner: false,
  is_admin: false,
  is_guest: false,
  is_bot: false,
  bot_type: null,
  role: 400,
  timezone: 'America/New_York',
  avatar_url: 'https://secure.gravatar.com/avatar/f87ca5408ced7a3814893d2b32544043?d=identicon&version=1',
  avatar_version: 1,
  is_imported_stub: false,
};

/** The examples' user group `designers`, with its permission settings. */
export const EXAMPLE_USER_GROUP = {
  id: 14,
  name: 'designers',
  description: 'Product designers',
  date_created: 1764200000,
  creator_id: 8,
  members: [8, 9],
  direct_subgroup_ids: [],
  is_system_group: false,
  deactivated: false,
  can_add_members_group: { direct_members: [8], direct_subgroups: [] },
  can_join_group: 8,
  can_leave_group: 2,
  can_manage_group: { direct_members: [8], direct_subgroups: [] },
  can_mention_group: 2,
  can_remove_members_group: 8,
};
