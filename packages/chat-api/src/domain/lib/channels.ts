import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { firstMessageIds, streamById, type Stream } from './streams.ts';
import { formatBasicStream } from '../presenters/streams.ts';
import { isAdmin, isGuest } from './users.ts';
import { receivedMessages } from './user-messages.ts';
import { rows } from '@muse/core';

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

/** Whether the caller may see the channel: public for members, else subscribed or administrator. */
export async function maySeeStream(actor: Actor, stream: Stream): Promise<boolean> {
  const { db, user } = actor;
  if (isAdmin(user) || (!stream.invite_only && !isGuest(user))) return true;
  const subscribed = await rows(
    db,
    'SELECT 1 FROM chat.subscriptions WHERE stream_id = :streamId AND user_id = :userId AND active',
    { streamId: stream.id, userId: user.id },
  );
  return subscribed.length > 0;
}

/** A channel the caller may see (see `maySeeStream`), or Zulip's "Invalid channel ID". */
export async function accessibleStream(actor: Actor, streamId: number): Promise<Stream> {
  const stream = await streamById(actor.db, actor.realm.id, streamId);
  if (stream && (await maySeeStream(actor, stream))) return stream;
  throw new JsonableError('Invalid channel ID', { code: 'BAD_REQUEST' });
}

/**
 * The channel's topics the caller may see, newest first, each with its newest message id:
 * all of them when the caller may read the channel's history, else those of messages they received.
 */
export async function channelTopics(
  actor: Actor,
  stream: Stream,
  canReadHistory: boolean,
): Promise<{ name: string; max_id: number }[]> {
  const found = await rows<{ name: string; max_id: string }>(
    actor.db,
    canReadHistory
      ? `SELECT DISTINCT ON (lower(m.topic)) m.topic AS name, max(m.id) OVER (PARTITION BY lower(m.topic)) AS max_id
         FROM chat.messages m WHERE m.stream_id = :streamId ORDER BY lower(m.topic), m.id DESC`
      : `SELECT DISTINCT ON (lower(m.topic)) m.topic AS name, max(m.id) OVER (PARTITION BY lower(m.topic)) AS max_id
         FROM (${receivedMessages({ where: ['m.stream_id = :streamId'] })}) m
         ORDER BY lower(m.topic), m.id DESC`,
    { streamId: stream.id, userId: actor.user.id },
  );
  return found.map((t) => ({ name: t.name, max_id: Number(t.max_id) })).sort((a, b) => b.max_id - a.max_id);
}
