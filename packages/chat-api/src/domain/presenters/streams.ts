import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { renderMarkdown } from '../lib/markdown.ts';
import { isAdmin, isGuest, type User } from '../lib/users.ts';
import {
  firstMessageIds,
  GROUP_SETTING_NAMES,
  subscriberIds,
  type Stream,
  type SubscriptionRow,
} from '../lib/streams.ts';
import { rows } from '@muse/core';

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

export interface StreamFilters {
  includePublic?: boolean;
  includeWebPublic?: boolean;
  includeSubscribed?: boolean;
  excludeArchived?: boolean;
  includeAllActive?: boolean;
  includeDefault?: boolean;
  /** Add `is_default` to each (GET /streams does; `/register`'s `streams` does not). */
  markDefault?: boolean;
}

/**
 * The channels `GET /streams` lists (and `/register`'s `streams`): public ones (not for guests),
 * web-public ones, the caller's subscriptions, or every channel for an administrator who asks
 * for `include_all_active`, each with `is_default`.
 */
export async function visibleStreams(
  actor: Actor,
  filters: StreamFilters,
): Promise<Record<string, unknown>[]> {
  const { db, realm, user } = actor;
  if (filters.includeAllActive && !isAdmin(user))
    throw new JsonableError('User not authorized for this query');
  const conditions: string[] = [];
  if (filters.includeAllActive) conditions.push('true');
  if ((filters.includePublic ?? true) && !isGuest(user)) conditions.push('NOT st.invite_only');
  if (filters.includeWebPublic) conditions.push('st.is_web_public');
  if (filters.includeSubscribed ?? true)
    conditions.push(
      'EXISTS (SELECT 1 FROM chat.subscriptions s WHERE s.stream_id = st.id AND s.user_id = :userId AND s.active)',
    );
  if (filters.includeDefault) conditions.push('st.is_default');
  if (conditions.length === 0) return [];
  const found = await rows<Stream>(
    db,
    `SELECT st.* FROM chat.streams st WHERE st.realm_id = :realmId
       ${filters.excludeArchived === false ? '' : 'AND NOT st.is_archived'}
       AND (${conditions.join(' OR ')}) ORDER BY st.name`,
    { realmId: realm.id, userId: user.id },
  );
  const firsts = await firstMessageIds(
    db,
    found.map((s) => s.id),
  );
  return found.map((stream) => ({
    ...formatBasicStream(stream, firsts.get(stream.id) ?? null),
    ...(filters.markDefault ? { is_default: stream.is_default } : {}),
  }));
}
