import type { Sequelize } from '@muse/core';
import { lockChannels } from './channel-locks.ts';
import type { Stream } from './streams.ts';
import { spanCovers } from './user-messages.ts';
import { rows, type Transaction } from '@muse/core';

/** Users with the same flags on a message. */
export interface HolderGroup {
  flags: string[];
  users: number[];
}

export interface MoveHolders {
  /** Per moved message, those who had it and no longer do (they get `delete_message`). */
  lost: { messageId: number; users: number[] }[];
  /** Everyone who has any moved message after the move, by their flags on the edited one ([] if not). */
  holders: HolderGroup[];
}

/**
 * Who has messages moved to another channel (the README's rule, as Zulip's): a holder keeps a
 * message when subscribed to the new channel or when their subscription span of it covers the
 * message (they were in it when it was sent), with the flags they had; the rest lose it. Those
 * whose span of the new channel covers it and who did not have it gain it, and, when the new
 * channel is private without shared history, so do all its subscribers (as Zulip gives them a
 * row, since they could not read it otherwise); what they gain is read. Stores that (flags rows
 * where a holder's flags differ from what the new channel's spans give them; rows of those who
 * lose it deleted) in one statement, before the messages' channel changes, under both channels'
 * shared locks (lib/channel-locks.ts: no subscription of either changes meanwhile).
 */
export async function moveHolders(
  db: Sequelize,
  t: Transaction,
  move: { messageId: number; ids: number[]; from: Stream; to: Stream },
): Promise<MoveHolders> {
  await lockChannels(db, t, [move.from.id, move.to.id], 'shared');
  const found = await rows<{
    kind: 'lost' | 'holds';
    message_id: string | null;
    flags: string;
    users: number[];
  }>(
    db,
    `WITH moved AS (SELECT m.id, m.sender_id, m.wildcard_mentioned FROM chat.messages m WHERE m.id IN (:ids)),
     before AS (
       SELECT h.user_id, m.id AS message_id, h.flags
       FROM moved m CROSS JOIN LATERAL chat.message_holders(m.id) h),
     members AS (SELECT s.user_id FROM chat.subscriptions s WHERE s.stream_id = :to AND s.active),
     covered AS (
       SELECT sp.user_id, m.id AS message_id,
         chat.default_flags(sp.user_id, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned) AS flags
       FROM moved m JOIN chat.subscription_spans sp ON sp.stream_id = :to AND ${spanCovers('m.id')}),
     kept AS (
       SELECT b.* FROM before b
       WHERE b.user_id IN (SELECT user_id FROM members)
          OR EXISTS (SELECT 1 FROM covered c WHERE c.user_id = b.user_id AND c.message_id = b.message_id)),
     gained AS (
       SELECT g.user_id, g.message_id, ARRAY['read']::text[] AS flags FROM (
         SELECT c.user_id, c.message_id FROM covered c
         UNION
         SELECT s.user_id, m.id FROM members s CROSS JOIN moved m WHERE :everyMember) g
       WHERE NOT EXISTS (SELECT 1 FROM before b WHERE b.user_id = g.user_id AND b.message_id = g.message_id)),
     after AS (SELECT * FROM kept UNION ALL SELECT * FROM gained),
     dropped AS (
       DELETE FROM chat.user_messages um USING moved m
       WHERE um.message_id = m.id
         AND NOT EXISTS (SELECT 1 FROM after a WHERE a.user_id = um.user_id AND a.message_id = um.message_id)),
     written AS (
       INSERT INTO chat.user_messages (user_id, message_id, flags)
       SELECT a.user_id, a.message_id, a.flags FROM after a
       LEFT JOIN covered c ON c.user_id = a.user_id AND c.message_id = a.message_id
       LEFT JOIN chat.user_messages e ON e.user_id = a.user_id AND e.message_id = a.message_id
       WHERE COALESCE(e.flags, c.flags) IS DISTINCT FROM a.flags
       ON CONFLICT (user_id, message_id) DO UPDATE SET flags = EXCLUDED.flags)
     SELECT 'lost' AS kind, b.message_id, '' AS flags, array_agg(b.user_id ORDER BY b.user_id) AS users
     FROM before b
     WHERE NOT EXISTS (SELECT 1 FROM after a WHERE a.user_id = b.user_id AND a.message_id = b.message_id)
     GROUP BY b.message_id
     UNION ALL
     SELECT 'holds', NULL, h.flags, array_agg(h.user_id ORDER BY h.user_id) FROM (
       SELECT a.user_id, COALESCE(max(array_to_string(a.flags, ',')) FILTER (WHERE a.message_id = :messageId), '') AS flags
       FROM after a GROUP BY a.user_id) h
     GROUP BY h.flags`,
    {
      ids: move.ids,
      to: move.to.id,
      messageId: move.messageId,
      everyMember: move.to.invite_only && !move.to.history_public_to_subscribers,
    },
    t,
  );
  return {
    lost: found
      .filter((r) => r.kind === 'lost')
      .map((r) => ({ messageId: Number(r.message_id), users: r.users }))
      .sort((a, b) => a.messageId - b.messageId),
    holders: found
      .filter((r) => r.kind === 'holds')
      .map((r) => ({ flags: r.flags === '' ? [] : r.flags.split(','), users: r.users })),
  };
}
