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
  const realm = await one<{ realm_id: number | null }>(
    db,
    `SELECT COALESCE((SELECT realm_id FROM chat.users WHERE id = :userId),
                     (SELECT realm_id FROM chat.streams WHERE id = :streamId)) AS realm_id`,
    {
      userId: entries.find((e) => e.users)?.users?.[0] ?? null,
      streamId: entries.find((e) => e.channel)?.channel?.streamId ?? null,
    },
    t,
  );
  const realmId = realm?.realm_id;
  if (!realmId) return;
  await appendToLog(db, t, realmId, entries);
  const users = [...new Set(entries.flatMap((e) => e.users ?? []))];
  const named = users.length <= MAX_IDS_PER_WAKE && !entries.some((e) => e.channel);
  t.afterCommit(() => wake(db, { realms: [{ id: realmId, ...(named ? { users } : {}) }] }));
}

/**
 * Writes the entries at the sequence's next positions, in order, as the transaction's last
 * statement (nothing stays locked until commit). A reader that meant to void one of these
 * positions got there first (settledPosition): the whole transaction runs again.
 */
export async function appendToLog(
  db: Sequelize,
  t: Transaction,
  realmId: number,
  entries: LogEntry[],
): Promise<void> {
  const array = (ids: number[] | null | undefined) => (ids ? `"{${ids.join(',')}}"` : 'null');
  const written = await rows(
    db,
    `INSERT INTO chat.event_log
       (realm_id, position, event_type, user_ids, queue_id, stream_id, message_id, excluded_ids, event)
     SELECT :realmId, nextval('chat.event_log_positions'), b.item->>'type', CAST(b.item->>'users' AS int[]),
            b.item->>'queue', CAST(b.item->>'stream' AS int), CAST(b.item->>'message' AS bigint),
            CAST(b.item->>'excluded' AS int[]), b.item->'event'
     FROM jsonb_array_elements(CAST(:batch AS jsonb)) AS b(item)
     ON CONFLICT (position) DO NOTHING RETURNING 1`,
    {
      realmId,
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
  if (written.length < entries.length)
    throw Object.assign(new Error('a reader voided a position of this transaction'), { code: '40001' });
}
