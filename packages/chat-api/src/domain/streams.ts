import type { Sequelize } from '@muse/core';
import { insufficientPermission, JsonableError, ownerRequired } from '../http/errors.ts';
import type { Actor } from './context.ts';
import { sendEvent } from './events.ts';
import { userHasGroupSetting, validateGroupSetting, type GroupSetting } from './groups.ts';
import { MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH } from './limits.ts';
import { renderMarkdown } from './markdown.ts';
import { systemGroupIds } from './realms.ts';
import { exec, one, rows, type Transaction } from './sql.ts';
import { isAdmin, isGuest, isOwner, type User } from './users.ts';

export const GROUP_SETTING_NAMES = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;
export type GroupSettingName = (typeof GROUP_SETTING_NAMES)[number];

export const TOPICS_POLICIES = [
  'inherit',
  'allow_empty_topic',
  'disable_empty_topic',
  'empty_topic_only',
] as const;

export interface Stream extends Record<GroupSettingName, GroupSetting> {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  date_created: Date;
  creator_id: number | null;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  message_retention_days: number | null;
  topics_policy: string;
  is_archived: boolean;
  is_default: boolean;
}

export interface SubscriptionRow {
  user_id: number;
  stream_id: number;
  active: boolean;
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

const COLORS = [
  '#76ce90',
  '#fae589',
  '#a6c7e5',
  '#e79ab5',
  '#bfd56f',
  '#f4ae55',
  '#b0a5fd',
  '#addfe5',
  '#f5ce6e',
];

export async function streamById(db: Sequelize, realmId: number, id: number): Promise<Stream | undefined> {
  return one<Stream>(db, 'SELECT * FROM chat.streams WHERE realm_id = :realmId AND id = :id', {
    realmId,
    id,
  });
}

export async function streamByName(
  db: Sequelize,
  realmId: number,
  name: string,
): Promise<Stream | undefined> {
  return one<Stream>(
    db,
    'SELECT * FROM chat.streams WHERE realm_id = :realmId AND lower(name) = lower(:name)',
    {
      realmId,
      name,
    },
  );
}

/**
 * The realm's channels of the given names (compared as streamByName does), keyed by the name as
 * asked, each with which of `userIds` are active subscribers: what a subscribe request reads, in one query.
 */
export async function streamsByNameWithSubscribers(
  db: Sequelize,
  realmId: number,
  names: string[],
  userIds: number[],
): Promise<Map<string, { stream: Stream; subscribed: Set<number> }>> {
  const found = names.length
    ? await rows<Stream & { asked: string; subscribed_ids: number[] }>(
        db,
        `SELECT n AS asked, st.*, ARRAY(SELECT s.user_id FROM chat.subscriptions s
           WHERE s.stream_id = st.id AND s.active AND s.user_id IN (:userIds)) AS subscribed_ids
         FROM unnest(ARRAY[:names]::text[]) AS n
         JOIN chat.streams st ON st.realm_id = :realmId AND lower(st.name) = lower(n)`,
        { realmId, names, userIds },
      )
    : [];
  return new Map(
    found.map(({ asked, subscribed_ids: ids, ...stream }) => [asked, { stream, subscribed: new Set(ids) }]),
  );
}

export async function subscriberIds(
  db: Sequelize,
  streamIds: number[],
  t?: Transaction,
): Promise<Map<number, number[]>> {
  const found = streamIds.length
    ? await rows<{ stream_id: number; user_id: number }>(
        db,
        `SELECT s.stream_id, s.user_id FROM chat.subscriptions s JOIN chat.users u ON u.id = s.user_id
         WHERE s.stream_id IN (:streamIds) AND s.active AND u.is_active ORDER BY s.user_id`,
        { streamIds },
        t,
      )
    : [];
  const byStream = new Map<number, number[]>(streamIds.map((id) => [id, []]));
  for (const row of found) byStream.get(row.stream_id)?.push(row.user_id);
  return byStream;
}

/** The subscription record Zulip sends in `GET /users/me/subscriptions` and `subscription add`. */
export function formatSubscription(
  stream: Stream,
  sub: SubscriptionRow,
  extra: { subscribers?: number[] | undefined; firstMessageId: number | null },
): Record<string, unknown> {
  const formatted: Record<string, unknown> = {
    ...formatBasicStream(stream, extra.firstMessageId),
    color: sub.color,
    desktop_notifications: sub.desktop_notifications,
    email_notifications: sub.email_notifications,
    wildcard_mentions_notify: sub.wildcard_mentions_notify,
    push_notifications: sub.push_notifications,
    audible_notifications: sub.audible_notifications,
    pin_to_top: sub.pin_to_top,
    is_muted: sub.is_muted,
    in_home_view: !sub.is_muted,
  };
  if (extra.subscribers) formatted.subscribers = extra.subscribers;
  return formatted;
}

export async function firstMessageIds(
  db: Sequelize,
  streamIds: number[],
  t?: Transaction,
): Promise<Map<number, number>> {
  const found = streamIds.length
    ? await rows<{ stream_id: number; first: string }>(
        db,
        'SELECT stream_id, min(id) AS first FROM chat.messages WHERE stream_id IN (:streamIds) GROUP BY stream_id',
        { streamIds },
        t,
      )
    : [];
  return new Map(found.map((row) => [row.stream_id, Number(row.first)]));
}

/** The caller's active subscriptions, formatted. */
export async function listSubscriptions(
  db: Sequelize,
  user: User,
  includeSubscribers: boolean,
): Promise<Record<string, unknown>[]> {
  const subs = await rows<SubscriptionRow & { stream: Stream }>(
    db,
    `SELECT s.*, to_jsonb(st.*) AS stream FROM chat.subscriptions s JOIN chat.streams st ON st.id = s.stream_id
     WHERE s.user_id = :userId AND s.active ORDER BY st.name`,
    { userId: user.id },
  );
  const streamIds = subs.map((s) => s.stream_id);
  const subscribers = includeSubscribers ? await subscriberIds(db, streamIds) : undefined;
  const firsts = await firstMessageIds(db, streamIds);
  return subs.map((sub) => {
    const stream = { ...sub.stream, date_created: new Date(sub.stream.date_created) };
    return formatSubscription(stream, sub, {
      subscribers: subscribers?.get(sub.stream_id),
      firstMessageId: firsts.get(sub.stream_id) ?? null,
    });
  });
}

/** Users who see a channel's subscriber changes: everyone for public channels, else subscribers and admins. */
async function peerAudience(db: Sequelize, stream: Stream, t: Transaction): Promise<number[]> {
  const found = await rows<{ id: number }>(
    db,
    stream.invite_only
      ? `SELECT u.id FROM chat.users u WHERE u.realm_id = :realmId AND u.is_active AND (u.role <= 200 OR EXISTS
           (SELECT 1 FROM chat.subscriptions s WHERE s.user_id = u.id AND s.stream_id = :streamId AND s.active))`
      : `SELECT id FROM chat.users WHERE realm_id = :realmId AND is_active AND role <> 600`,
    { realmId: stream.realm_id, streamId: stream.id },
    t,
  );
  return found.map((row) => row.id);
}

export interface CreationSettings {
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers: boolean | undefined;
  message_retention_days: string | number | undefined;
  topics_policy: string | undefined;
  groupSettings: Partial<Record<GroupSettingName, GroupSetting>>;
}

/** Checks the creation settings once per request, before anything is written. */
export async function validateCreationSettings(
  actor: Actor,
  settings: CreationSettings,
): Promise<number | null> {
  const { user, realm, config, db } = actor;
  if (settings.is_web_public) {
    if (!config.MUSE_CHAT_WEB_PUBLIC_STREAMS || !realm.enable_spectator_access) {
      throw new JsonableError('Web-public channels are not enabled.');
    }
    if (!isAdmin(user)) throw insufficientPermission();
  }
  if (settings.is_default_stream) {
    if (!isAdmin(user)) throw insufficientPermission();
    if (settings.invite_only) throw new JsonableError('A default channel cannot be private.');
  }
  for (const [name, value] of Object.entries(settings.groupSettings)) {
    if (value !== undefined) await validateGroupSetting(db, realm.id, name, value);
  }
  return retentionDays(settings.message_retention_days, user);
}

const MAX_RETENTION_DAYS = 2_147_483_647;

/** 'realm_default' → null (follow the organization), 'unlimited' → -1, else a positive number of days. */
function retentionDays(value: string | number | undefined, user: User): number | null {
  if (value === undefined || value === 'realm_default') return null;
  if (!isOwner(user)) throw ownerRequired();
  if (value === 'unlimited') return -1;
  const days = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  // The column is a Postgres integer; a larger count would fail the insert.
  if (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS) {
    throw new JsonableError(`Bad value for 'message_retention_days': ${String(value)}`);
  }
  return days;
}

/** Another request created a channel of this name after we looked; the caller starts over. */
export class ChannelCreatedMeanwhile extends JsonableError {
  constructor(name: string) {
    super(`Channel '${name}' was created by another request at the same time; please retry.`);
  }
}

export async function createStream(
  actor: Pick<Actor, 'db' | 'realm' | 'user'>,
  input: { name: string; description: string },
  settings: CreationSettings,
  retention: number | null,
  t: Transaction,
): Promise<Stream> {
  const { db, realm, user } = actor;
  const groups = await systemGroupIds(db, realm.id, t);
  const defaults: Record<GroupSettingName, GroupSetting> = {
    can_add_subscribers_group: groups['role:nobody'],
    can_remove_subscribers_group: groups['role:administrators'],
    can_administer_channel_group: { direct_members: [user.id], direct_subgroups: [] },
    can_delete_any_message_group: groups['role:administrators'],
    can_delete_own_message_group: groups['role:everyone'],
    can_send_message_group: groups['role:everyone'],
    can_subscribe_group: groups['role:nobody'],
  };
  const values = { ...defaults, ...settings.groupSettings };
  const stream = await one<Stream>(
    db,
    `INSERT INTO chat.streams (realm_id, name, description, creator_id, invite_only, is_web_public,
       history_public_to_subscribers, message_retention_days, topics_policy, is_default,
       ${GROUP_SETTING_NAMES.join(', ')})
     VALUES (:realmId, :name, :description, :creatorId, :inviteOnly, :webPublic, :history, :retention, :topicsPolicy,
       :isDefault, ${GROUP_SETTING_NAMES.map((n) => `CAST(:${n} AS jsonb)`).join(', ')})
     ON CONFLICT (realm_id, lower(name)) DO NOTHING
     RETURNING *`,
    {
      realmId: realm.id,
      name: input.name,
      description: input.description,
      creatorId: user.id,
      inviteOnly: settings.invite_only,
      webPublic: settings.is_web_public,
      // Zulip's default: private channels hide earlier history unless asked otherwise.
      history: settings.history_public_to_subscribers ?? !settings.invite_only,
      retention,
      topicsPolicy: settings.topics_policy ?? 'inherit',
      isDefault: settings.is_default_stream,
      ...Object.fromEntries(GROUP_SETTING_NAMES.map((n) => [n, JSON.stringify(values[n])])),
    },
    t,
  );
  if (!stream) throw new ChannelCreatedMeanwhile(input.name);
  const audience = await peerAudience(db, stream, t);
  await sendEvent(db, t, stream.invite_only ? [user.id] : audience, {
    type: 'stream',
    op: 'create',
    streams: [formatBasicStream(stream)],
  });
  return stream;
}

/**
 * Whether the user may read the channel's whole history, not only what they received:
 * members may read public channels, subscribers channels whose history is shared (Zulip's rule).
 */
export async function canReadHistory(db: Sequelize, user: User, stream: Stream): Promise<boolean> {
  if (!stream.invite_only && !isGuest(user)) return true;
  return stream.history_public_to_subscribers && (await isSubscribed(db, user.id, stream.id));
}

/** The organization's default channels (`is_default_stream`), which every new user joins. */
export async function defaultStreams(db: Sequelize, realmId: number, t?: Transaction): Promise<Stream[]> {
  return rows<Stream>(
    db,
    'SELECT * FROM chat.streams WHERE realm_id = :realmId AND is_default AND NOT is_archived ORDER BY id',
    { realmId },
    t,
  );
}

/** Subscribes a newly created user to the default channels, as Zulip does at sign-up. */
export async function joinDefaultStreams(db: Sequelize, user: User, t: Transaction): Promise<void> {
  for (const stream of await defaultStreams(db, user.realm_id, t))
    await subscribeUsers(db, stream, [user], t);
}

/** The channel as Zulip describes it in `stream` events; a subscription adds the user's settings. */
export function formatBasicStream(
  stream: Stream,
  firstMessageId: number | null = null,
): Record<string, unknown> {
  const formatted: Record<string, unknown> = {
    stream_id: stream.id,
    name: stream.name,
    description: stream.description,
    rendered_description: renderMarkdown(stream.description),
    date_created: Math.floor(stream.date_created.getTime() / 1000),
    creator_id: stream.creator_id,
    invite_only: stream.invite_only,
    is_web_public: stream.is_web_public,
    is_announcement_only: false,
    stream_post_policy: 1,
    history_public_to_subscribers: stream.history_public_to_subscribers,
    first_message_id: firstMessageId,
    message_retention_days: stream.message_retention_days,
    is_archived: stream.is_archived,
    is_recently_active: true,
    stream_weekly_traffic: null,
    topics_policy: stream.topics_policy,
  };
  for (const name of GROUP_SETTING_NAMES) formatted[name] = stream[name];
  return formatted;
}

export function validateStreamName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new JsonableError("Channel name can't be empty.");
  if ([...trimmed].length > MAX_STREAM_NAME_LENGTH) {
    throw new JsonableError(`Channel name too long (limit: ${MAX_STREAM_NAME_LENGTH} characters).`);
  }
  if (/[\u0000-\u001f]/.test(trimmed)) throw new JsonableError('Invalid character in channel name.');
  return trimmed;
}

export function validateStreamDescription(description: string): string {
  if ([...description].length > MAX_STREAM_DESCRIPTION_LENGTH) {
    throw new JsonableError(
      `Channel description too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters).`,
    );
  }
  return description;
}

export async function isSubscribed(db: Sequelize, userId: number, streamId: number): Promise<boolean> {
  return !!(await one(
    db,
    'SELECT 1 FROM chat.subscriptions WHERE user_id = :userId AND stream_id = :streamId AND active',
    {
      userId,
      streamId,
    },
  ));
}

/**
 * Whether `actor` may subscribe `targets` to an existing channel (Zulip's rules at level 349+):
 * guests never join on their own; private channels need existing access or a group permission.
 */
export async function maySubscribe(
  db: Sequelize,
  actor: User,
  stream: Stream,
  others: boolean,
): Promise<boolean> {
  if (stream.is_archived) return false;
  if (isAdmin(actor)) return true;
  if (await userHasGroupSetting(db, actor, stream.can_administer_channel_group)) return true;
  if (await userHasGroupSetting(db, actor, stream.can_add_subscribers_group)) return true;
  if (!others && (await userHasGroupSetting(db, actor, stream.can_subscribe_group))) return true;
  if (isGuest(actor)) return false;
  if (!stream.invite_only) return true;
  // A subscriber of a private channel may add others to it.
  return others && (await isSubscribed(db, actor.id, stream.id));
}

export async function mayUnsubscribeOthers(db: Sequelize, actor: User, stream: Stream): Promise<boolean> {
  if (isAdmin(actor)) return true;
  if (await userHasGroupSetting(db, actor, stream.can_administer_channel_group)) return true;
  return userHasGroupSetting(db, actor, stream.can_remove_subscribers_group);
}

/**
 * Subscribes users; returns those that were newly subscribed. Emits add and peer_add events.
 * Callers skip users they found subscribed already: even a no-op upsert locks the row, a write.
 */
export async function subscribeUsers(
  db: Sequelize,
  stream: Stream,
  users: User[],
  t: Transaction,
): Promise<{ added: User[]; already: User[] }> {
  if (users.length === 0) return { added: [], already: [] };
  // One statement for every user; each new row's colour follows that user's number of
  // subscriptions. The upsert decides under a row lock, so two concurrent calls cannot both report "added".
  const activated = await rows<SubscriptionRow>(
    db,
    `INSERT INTO chat.subscriptions (user_id, stream_id, color)
     SELECT u, :streamId,
       (ARRAY[:colors]::text[])[1 + ((SELECT count(*) FROM chat.subscriptions s WHERE s.user_id = u) % :colorCount)::int]
     FROM unnest(ARRAY[:userIds]::int[]) AS u ORDER BY u
     ON CONFLICT (user_id, stream_id) DO UPDATE SET active = true WHERE NOT chat.subscriptions.active
     RETURNING *`,
    { streamId: stream.id, colors: COLORS, colorCount: COLORS.length, userIds: users.map((u) => u.id) },
    t,
  );
  const rowOf = new Map(activated.map((sub) => [sub.user_id, sub]));
  const added = users.filter((u) => rowOf.has(u.id));
  const already = users.filter((u) => !rowOf.has(u.id));
  if (added.length === 0) return { added, already };
  const subscribers = (await subscriberIds(db, [stream.id], t)).get(stream.id) ?? [];
  // Inside the transaction: a second pooled connection per request could exhaust the pool.
  const firstMessage = (await firstMessageIds(db, [stream.id], t)).get(stream.id) ?? null;
  for (const target of added) {
    await sendEvent(db, t, [target.id], {
      type: 'subscription',
      op: 'add',
      subscriptions: [
        formatSubscription(stream, rowOf.get(target.id)!, { subscribers, firstMessageId: firstMessage }),
      ],
    });
  }
  const addedIds = new Set(added.map((u) => u.id));
  const peers = (await peerAudience(db, stream, t)).filter((id) => !addedIds.has(id));
  await sendEvent(db, t, peers, {
    type: 'subscription',
    op: 'peer_add',
    stream_ids: [stream.id],
    user_ids: [...addedIds],
  });
  return { added, already };
}

export async function unsubscribeUsers(
  db: Sequelize,
  stream: Stream,
  users: User[],
  t: Transaction,
): Promise<{ removed: User[]; notSubscribed: User[] }> {
  const removed: User[] = [];
  const notSubscribed: User[] = [];
  for (const target of users) {
    const updated = await rows(
      db,
      `UPDATE chat.subscriptions SET active = false WHERE user_id = :userId AND stream_id = :streamId AND active
       RETURNING user_id`,
      { userId: target.id, streamId: stream.id },
      t,
    );
    (updated.length ? removed : notSubscribed).push(target);
  }
  for (const target of removed) {
    await sendEvent(db, t, [target.id], {
      type: 'subscription',
      op: 'remove',
      subscriptions: [{ name: stream.name, stream_id: stream.id }],
    });
  }
  if (removed.length) {
    const removedIds = removed.map((u) => u.id);
    const peers = (await peerAudience(db, stream, t)).filter((id) => !removedIds.includes(id));
    await sendEvent(db, t, peers, {
      type: 'subscription',
      op: 'peer_remove',
      stream_ids: [stream.id],
      user_ids: removedIds,
    });
  }
  return { removed, notSubscribed };
}

export const SUBSCRIPTION_PROPERTIES = [
  'color',
  'is_muted',
  'in_home_view',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;

/**
 * Sets one subscription property. `is_muted` and its legacy inverse `in_home_view` are one
 * column; both events are sent so old and new clients each see the property they know.
 */
export async function updateSubscriptionProperty(
  db: Sequelize,
  user: User,
  realmId: number,
  change: { stream_id: number; property: string; value: unknown },
  t: Transaction,
): Promise<void> {
  const { stream_id: streamId, property, value } = change;
  if (!(SUBSCRIPTION_PROPERTIES as readonly string[]).includes(property)) {
    throw new JsonableError(`Unknown subscription property: ${property}`);
  }
  const stream = await streamById(db, realmId, streamId);
  if (!stream) throw new JsonableError('Invalid channel ID');
  const sub = await one(
    db,
    'SELECT 1 FROM chat.subscriptions WHERE user_id = :u AND stream_id = :s AND active',
    {
      u: user.id,
      s: streamId,
    },
    t,
  );
  if (!sub) throw new JsonableError(`Not subscribed to channel ID ${streamId}`);
  if (property === 'color') {
    if (typeof value !== 'string' || !/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(value)) {
      throw new JsonableError('color is not a valid hex color code');
    }
  } else if (typeof value !== 'boolean') {
    throw new JsonableError(`${property} is not a boolean`);
  }
  const column = property === 'in_home_view' ? 'is_muted' : property;
  const stored = property === 'in_home_view' ? !value : value;
  await exec(
    db,
    `UPDATE chat.subscriptions SET "${column}" = :stored WHERE user_id = :u AND stream_id = :s`,
    {
      stored,
      u: user.id,
      s: streamId,
    },
    t,
  );
  const event = (p: string, v: unknown) => ({
    type: 'subscription',
    op: 'update',
    stream_id: streamId,
    property: p,
    value: v,
  });
  if (column === 'is_muted') {
    await sendEvent(db, t, [user.id], event('in_home_view', !stored));
    await sendEvent(db, t, [user.id], event('is_muted', stored));
  } else {
    await sendEvent(db, t, [user.id], event(property, value));
  }
}

/** Settings of a plain public channel, for channels the server creates itself. */
export const PUBLIC_CHANNEL: CreationSettings = {
  invite_only: false,
  is_web_public: false,
  is_default_stream: false,
  history_public_to_subscribers: undefined,
  message_retention_days: undefined,
  topics_policy: undefined,
  groupSettings: {},
};
