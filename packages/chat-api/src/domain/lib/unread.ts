import type { Sequelize } from '@muse/core';
import { VISIBILITY } from './user-topics.ts';
import { receivedMessages } from './user-messages.ts';
import { rows } from '@muse/core';

/** Zulip sends at most this many unread messages in `unread_msgs` (and says when it left some out). */
const MAX_UNREAD = 50000;

interface UnreadRow {
  id: string;
  sender_id: number;
  stream_id: number | null;
  topic: string;
  recipient_ids: number[] | null;
  flags: string[];
  muted: boolean;
}

/**
 * `unread_msgs` of `/register`: the user's unread messages grouped by conversation, the mentions
 * among them, and `count`, which leaves out muted channels and topics as Zulip's does.
 */
export async function unreadMessages(db: Sequelize, userId: number): Promise<Record<string, unknown>> {
  const found = await rows<UnreadRow>(
    db,
    `SELECT m.id, m.sender_id, m.stream_id, m.topic, m.recipient_ids, m.flags,
       COALESCE(ut.visibility_policy = :mutedTopic, false)
         OR (COALESCE(s.is_muted, false) AND COALESCE(ut.visibility_policy NOT IN (:unmuted, :followed), true))
         AS muted
     FROM (${receivedMessages({ unread: true, order: 'DESC', limit: 'limit' })}) m
     LEFT JOIN chat.subscriptions s ON s.user_id = :userId AND s.stream_id = m.stream_id
     LEFT JOIN chat.user_topics ut ON ut.user_id = :userId AND ut.stream_id = m.stream_id
       AND lower(ut.topic) = lower(m.topic)
     ORDER BY m.id DESC`,
    {
      userId,
      limit: MAX_UNREAD + 1,
      mutedTopic: VISIBILITY.MUTED,
      unmuted: VISIBILITY.UNMUTED,
      followed: VISIBILITY.FOLLOWED,
    },
  );
  const missing = found.length > MAX_UNREAD;
  const shown = found.slice(0, MAX_UNREAD).reverse();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let count = 0;
  for (const row of shown) {
    const id = Number(row.id);
    if (row.flags.includes('mentioned') || row.flags.includes('wildcard_mentioned')) mentions.push(id);
    if (row.stream_id !== null) {
      const key = `${row.stream_id}\u0000${row.topic.toLowerCase()}`;
      const entry = streams.get(key) ?? {
        stream_id: row.stream_id,
        topic: row.topic,
        unread_message_ids: [],
      };
      entry.unread_message_ids.push(id);
      streams.set(key, entry);
      if (!row.muted) count += 1;
      continue;
    }
    count += 1;
    const members = [...new Set(row.recipient_ids ?? [])].sort((a, b) => a - b);
    if (members.length <= 2) {
      // A one-on-one conversation is keyed by the other person (yourself, for notes to self).
      const other = members.find((m) => m !== userId) ?? userId;
      pms.set(other, [...(pms.get(other) ?? []), id]);
    } else {
      const key = members.join(',');
      huddles.set(key, [...(huddles.get(key) ?? []), id]);
    }
  }
  return {
    count,
    pms: [...pms].map(([other, ids]) => ({
      other_user_id: other,
      sender_id: other,
      unread_message_ids: ids,
    })),
    streams: [...streams.values()],
    huddles: [...huddles].map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    old_unreads_missing: missing,
  };
}

/** Ids of the user's starred messages, oldest first (a flag no default carries: always a row). */
export async function starredMessageIds(db: Sequelize, userId: number): Promise<number[]> {
  const found = await rows<{ message_id: string }>(
    db,
    `SELECT message_id FROM chat.user_messages WHERE user_id = :userId AND 'starred' = ANY (flags)
     ORDER BY message_id`,
    { userId },
  );
  return found.map((r) => Number(r.message_id));
}
