/*
 * The event log: what producers write. An event is stored once, in its organization's event log, with
 * the ids of the users it is for (4 bytes each), or, for a large channel's message, the message itself
 * (its receivers follow from their subscription spans when the log is read); nobody's queue is written
 * when it is produced. An action's events are appended by one before-commit hook at the sequence's
 * next positions, as its transaction's last statement, so producers commit side by side; the
 * transaction then wakes the waiting polls after commit (notifier.ts). Readers deliver only settled
 * positions (positions.ts), so a reader never skips an event that commits later, and a queue's
 * events keep the order their transactions took positions in. Queues are cursors over this log
 * (registration.ts), read by reader.ts.
 */
import type { Sequelize } from '@muse/core';
import { spanCovers } from '../user-messages.ts';
import { MAX_IDS_PER_WAKE, wake } from './notifier.ts';
import { beforeCommit, one, rows, type Transaction } from '@muse/core';

export type ChatEvent = { type: string } & Record<string, unknown>;

/** A channel message's receivers (whose subscription span covers it), but `excluded`. */
export interface ChannelAudience {
  streamId: number;
  messageId: number;
  /** Receivers who get an entry of their own (the sender, the mentioned). */
  excluded: number[];
}

/** For `users`, for one queue (heartbeats), or for a channel message's receivers. */
export interface LogEntry {
  type: string;
  users: number[] | null;
  queue: string | null;
  channel: ChannelAudience | null;
  json: string;
}

const pendingEvents = new WeakMap<Transaction, LogEntry[]>();

/**
 * Stores `event` for `userIds` when the caller's transaction (opened with `transact`) commits:
 * every event of a transaction is appended by one hook, the transaction's last statements.
 */
export async function sendEvent(
  db: Sequelize,
  transaction: Transaction,
  userIds: Iterable<number>,
  event: ChatEvent,
): Promise<void> {
  const users = [...new Set(userIds)];
  if (users.length > 0) pend(db, transaction, event, { users, channel: null });
}

/**
 * Stores `event` for everyone who received a channel message but `audience.excluded`. Up to
 * MAX_IDS_PER_WAKE receivers are named as any event's users are (and woken one by one); beyond,
 * the entry names the message and readers find its receivers in the subscription spans, so a
 * send to 10,000 members neither reads nor writes their ids (the organization is woken, as it
 * would be for that many ids anyway).
 */
export async function sendChannelEvent(
  db: Sequelize,
  transaction: Transaction,
  audience: ChannelAudience,
  event: ChatEvent,
): Promise<void> {
  const few = await rows<{ user_id: number }>(
    db,
    `SELECT sp.user_id FROM chat.subscription_spans sp
     WHERE sp.stream_id = :streamId AND ${spanCovers(':messageId')}
       AND sp.user_id <> ALL (CAST(:excluded AS int[]))
     LIMIT :limit`,
    { ...audience, excluded: `{${audience.excluded.join(',')}}`, limit: MAX_IDS_PER_WAKE + 1 },
    transaction,
  );
  if (few.length <= MAX_IDS_PER_WAKE)
    return sendEvent(
      db,
      transaction,
      few.map((row) => row.user_id),
      event,
    );
  pend(db, transaction, event, { users: null, channel: audience });
}

/** Adds an entry to the transaction's, appended to the log by its before-commit hook. */
function pend(
  db: Sequelize,
  transaction: Transaction,
  event: ChatEvent,
  to: Pick<LogEntry, 'users' | 'channel'>,
): void {
  let pending = pendingEvents.get(transaction);
  if (!pending) {
    const list: LogEntry[] = [];
    beforeCommit(transaction, () => appendEvents(db, transaction, list));
    pendingEvents.set(transaction, (pending = list));
  }
  // Serialized now: the caller may change its object before the transaction commits.
  pending.push({ type: event.type, queue: null, ...to, json: JSON.stringify(event) });
}

/** Variant for events whose payload differs per recipient (e.g. what each may see). */
export async function sendEventsPerUser(
  db: Sequelize,
  transaction: Transaction,
  recipients: Iterable<[number, ChatEvent]>,
): Promise<void> {
  for (const [userId, event] of recipients) await sendEvent(db, transaction, [userId], event);
}

async function appendEvents(db: Sequelize, t: Transaction, entries: LogEntry[]): Promise<void> {
  // Events never cross organizations: the first recipient's (or channel's) is everyone's.
  const realmId = await appendToLog(
    db,
    t,
    {
      userId: entries.find((e) => e.users)?.users?.[0] ?? null,
      streamId: entries.find((e) => e.channel)?.channel?.streamId ?? null,
    },
    entries,
  );
  if (!realmId) return;
  const users = [...new Set(entries.flatMap((e) => e.users ?? []))];
  const named = users.length <= MAX_IDS_PER_WAKE && !entries.some((e) => e.channel);
  t.afterCommit(() => wake(db, { realms: [{ id: realmId, ...(named ? { users } : {}) }] }));
}

/** An organization, or where to find it: a user's or a channel's (in the same statement). */
export type LogRealm = number | { userId: number | null; streamId: number | null };

/**
 * Writes the entries at the sequence's next positions, in order, as the transaction's last
 * statement (nothing stays locked until commit), and answers the organization's id, or null when
 * there is none (the user or channel is gone: nothing is written). A reader that meant to void
 * one of these positions got there first (settledPosition): the whole transaction runs again.
 */
export async function appendToLog(
  db: Sequelize,
  t: Transaction,
  realm: LogRealm,
  entries: LogEntry[],
): Promise<number | null> {
  const array = (ids: number[] | null | undefined) => (ids ? `"{${ids.join(',')}}"` : 'null');
  const realmSql =
    typeof realm === 'number'
      ? 'CAST(:realmId AS int)'
      : `COALESCE((SELECT realm_id FROM chat.users WHERE id = :userId),
                  (SELECT realm_id FROM chat.streams WHERE id = :streamId))`;
  const result = await one<{ realm_id: number | null; written: number }>(
    db,
    `WITH realm AS (SELECT ${realmSql} AS id),
     written AS (
       INSERT INTO chat.event_log
         (realm_id, position, event_type, user_ids, queue_id, stream_id, message_id, excluded_ids, event)
       SELECT (SELECT id FROM realm), nextval('chat.event_log_positions'), b.item->>'type',
              CAST(b.item->>'users' AS int[]), b.item->>'queue', CAST(b.item->>'stream' AS int),
              CAST(b.item->>'message' AS bigint), CAST(b.item->>'excluded' AS int[]), b.item->'event'
       FROM jsonb_array_elements(CAST(:batch AS jsonb)) AS b(item)
       WHERE (SELECT id FROM realm) IS NOT NULL
       ON CONFLICT (position) DO NOTHING RETURNING 1)
     SELECT (SELECT id FROM realm) AS realm_id, CAST((SELECT count(*) FROM written) AS int) AS written`,
    {
      ...(typeof realm === 'number' ? { realmId: realm } : realm),
      // The event's own JSON is spliced in as it is: no parse and re-serialize per entry. The
      // recipients go as one array literal (a string), not as thousands of JSON numbers.
      batch: `[${entries
        .map(
          (e) =>
            `{"type":${JSON.stringify(e.type)},"users":${array(e.users)},"queue":${JSON.stringify(e.queue)},` +
            `"stream":${e.channel?.streamId ?? null},"message":${e.channel?.messageId ?? null},` +
            `"excluded":${array(e.channel?.excluded)},"event":${e.json}}`,
        )
        .join(',')}]`,
    },
    t,
  );
  if (!result?.realm_id) return null;
  if (result.written < entries.length)
    throw Object.assign(new Error('a reader voided a position of this transaction'), { code: '40001' });
  return result.realm_id;
}
