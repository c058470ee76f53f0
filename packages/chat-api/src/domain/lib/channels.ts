import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { streamById, type Stream } from './streams.ts';
import { isAdmin, isGuest } from './users.ts';
import { receivedMessages } from './user-messages.ts';
import { rows } from '@muse/core';

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
