import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { receivedMessages } from '../lib/user-messages.ts';
import { rows, type Transaction, transact } from '@muse/core';

/** The flags a user may set on their own messages (Zulip's `POST /messages/flags`). */
export const EDITABLE_FLAGS = ['read', 'starred', 'collapsed'] as const;
export type EditableFlag = (typeof EDITABLE_FLAGS)[number];

interface Changed {
  message_id: string;
  stream_id: number | null;
  topic: string;
  recipient_ids: number[] | null;
  sender_id: number;
  flags: string[];
}

/**
 * Adds or removes a flag on the user's copies of the given messages (or of every message matched
 * by `where`), and tells the user's queues which ones changed with `update_message_flags`.
 * Messages the user never received are left alone, as in Zulip. Returns the changed ids.
 *
 * A message whose flags were the default (lib/user-messages.ts) gets a row with its new flags;
 * a row that exists is changed in place, so two changes at once both apply. `readThrough` (for
 * marking a whole channel or everything read) moves the spans' watermarks instead of writing a
 * row per message: only messages that already had a row are written.
 */
export async function changeFlags(
  actor: Actor,
  change: { op: 'add' | 'remove'; flag: EditableFlag },
  target:
    { messageIds: number[] } | { where: string; params: Record<string, unknown>; readThrough?: boolean },
  t: Transaction,
): Promise<number[]> {
  const { db, user } = actor;
  const { op, flag } = change;
  const has = `(:flag = ANY (m.flags))`;
  const candidates =
    'messageIds' in target
      ? `SELECT m.*, chat.message_flags(:userId, m.id) AS flags, true AS explicit
         FROM chat.messages m WHERE m.id IN (:ids)`
      : receivedMessages({ where: [target.where], unread: op === 'add' && flag === 'read' });
  const params =
    'messageIds' in target ? { ids: target.messageIds.length ? target.messageIds : [-1] } : target.params;
  const watermark = !('messageIds' in target) && target.readThrough === true;
  const changed = await rows<Changed>(
    db,
    `WITH changed AS (
       SELECT m.id AS message_id, m.stream_id, m.topic, m.recipient_ids, m.sender_id, m.explicit,
         ${op === 'add' ? 'array_append(m.flags, CAST(:flag AS text))' : 'array_remove(m.flags, CAST(:flag AS text))'} AS flags
       FROM (${candidates}) m
       WHERE m.flags IS NOT NULL AND ${op === 'add' ? 'NOT' : ''} ${has}),
     stored AS (
       INSERT INTO chat.user_messages AS um (user_id, message_id, flags)
       SELECT :userId, c.message_id, c.flags FROM changed c ${watermark ? 'WHERE c.explicit' : ''}
       ON CONFLICT (user_id, message_id) DO UPDATE SET flags = ${
         op === 'add'
           ? `CASE WHEN :flag = ANY (um.flags) THEN um.flags ELSE array_append(um.flags, CAST(:flag AS text)) END`
           : 'array_remove(um.flags, CAST(:flag AS text))'
       }),
     moved AS (
       UPDATE chat.subscription_spans sp SET read_through = GREATEST(sp.read_through, c.last)
       FROM (SELECT stream_id, max(message_id) AS last FROM changed
             WHERE ${watermark ? 'NOT explicit' : 'false'} GROUP BY stream_id) c
       WHERE sp.user_id = :userId AND sp.stream_id = c.stream_id)
     SELECT message_id, stream_id, topic, recipient_ids, sender_id, flags FROM changed`,
    { ...params, userId: user.id, flag },
    t,
  );
  const ids = changed.map((c) => Number(c.message_id)).sort((a, b) => a - b);
  if (ids.length === 0) return ids;
  const event: Record<string, unknown> = {
    type: 'update_message_flags',
    op,
    flag,
    messages: ids,
    all: false,
  };
  // Marking unread needs the conversations, so clients can count them without fetching the messages.
  if (op === 'remove' && flag === 'read') event.message_details = messageDetails(changed, user.id);
  await sendEvent(db, t, [user.id], event as { type: string });
  return ids;
}

function messageDetails(changed: Changed[], userId: number): Record<string, Record<string, unknown>> {
  const details: Record<string, Record<string, unknown>> = {};
  for (const c of changed) {
    const mentioned = c.flags.includes('mentioned') || c.flags.includes('wildcard_mentioned');
    if (c.stream_id !== null) {
      details[c.message_id] = {
        type: 'stream',
        stream_id: c.stream_id,
        topic: c.topic,
        unmuted_stream_msg: true,
        ...(mentioned ? { mentioned: true } : {}),
      };
      continue;
    }
    const members = [...new Set(c.recipient_ids ?? [])].sort((a, b) => a - b);
    const others = members.filter((id) => id !== userId);
    details[c.message_id] = {
      type: 'private',
      user_ids: others,
      ...(mentioned ? { mentioned: true } : {}),
    };
  }
  return details;
}

export function checkFlag(flag: string): EditableFlag {
  if ((EDITABLE_FLAGS as readonly string[]).includes(flag)) return flag as EditableFlag;
  throw new JsonableError(`Invalid flag: '${flag}'`);
}

/** `mark_all_as_read`, `mark_stream_as_read`, `mark_topic_as_read`: every unread message of the scope becomes read. */
export async function markAsRead(
  actor: Actor,
  scope: { streamId?: number; topic?: string },
): Promise<number[]> {
  const conditions = ['true'];
  if (scope.streamId !== undefined) conditions.push('m.stream_id = :streamId');
  if (scope.topic !== undefined) conditions.push('lower(m.topic) = lower(:topic)');
  return transact(actor.db, (t) =>
    changeFlags(
      actor,
      { op: 'add', flag: 'read' },
      {
        where: conditions.join(' AND '),
        params: { streamId: scope.streamId, topic: scope.topic },
        // A whole channel (or everything) read: each span's watermark moves, no row per message.
        readThrough: scope.topic === undefined,
      },
      t,
    ),
  );
}
