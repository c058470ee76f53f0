import type { Sequelize } from '@muse/core';
import { insufficientPermission, JsonableError, ownerRequired } from '../errors.ts';
import type { Actor } from '../context.ts';
import { userHasGroupSetting, validateGroupSetting, type GroupSetting } from './group-settings.ts';
import { MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH } from '../limits.ts';
import { isAdmin, isGuest, isOwner, type User } from './users.ts';
import { one, rows, type Transaction } from '@muse/core';

// Channels (Zulip's streams): their rows, the queries that read them, and who may do what with
// them. Writes that send events are in actions/streams.ts; the wire shapes in presenters/streams.ts.

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

/** Users who see a channel's subscriber changes: everyone for public channels, else subscribers and admins. */
export async function peerAudience(db: Sequelize, stream: Stream, t: Transaction): Promise<number[]> {
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
 * Archived channels follow the same rules (level 362: their subscriptions can be modified).
 */
export async function maySubscribe(
  db: Sequelize,
  actor: User,
  stream: Stream,
  others: boolean,
): Promise<boolean> {
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
