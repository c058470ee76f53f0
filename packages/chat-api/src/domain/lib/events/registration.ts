/*
 * A queue's life. A queue is a cursor over the log: the last event its client acknowledged, both as
 * a log position and as the queue's own event id (Zulip's per-queue ids, 0, 1, 2, …), filtered by
 * user and event type when read (reader.ts). Here: registration (starting at the settled position,
 * within the user's cap of queues), deletion (by the client, with the user's account, or when
 * idle), and pruning the log below what every queue has acknowledged. Whatever deletes a queue
 * wakes its waiting polls, which answer BAD_EVENT_QUEUE_ID.
 */
import { randomUUID } from 'node:crypto';
import type { Sequelize } from '@muse/core';
import { JsonableError } from '../../errors.ts';
import type { EventNarrowTerm } from '../event-narrow.ts';
import { wake } from './notifier.ts';
import { settledPosition } from './positions.ts';
import { retrying, transact, exec, one, rows, type Transaction } from '@muse/core';

/** Advisory-lock namespace serializing one user's registrations (the queue cap). */
const REGISTER_LOCK = 0x63686174;
/** Advisory lock (this namespace, key 0) pruning takes alone and registrations share. */
const PRUNE_LOCK = 0x7072756e;

export interface EventQueue {
  id: string;
  user_id: number;
  realm_id: number;
  event_types: string[] | null;
  client_gravatar: boolean;
  apply_markdown: boolean;
  all_public_streams: boolean;
  /** The last event id the client acknowledged (-1 before the first). */
  last_event_id: number;
  /** The log position of that event (the settled position when the queue was made, before any). */
  acked_position: string;
  last_polled_at: Date;
}

export interface RegisterOptions {
  eventTypes: string[] | null;
  clientGravatar: boolean;
  applyMarkdown: boolean;
  allPublicStreams: boolean;
  /** Only the message events matching it (lib/event-narrow.ts); empty: every event. */
  narrow: EventNarrowTerm[];
  /** Queues the user may hold; the oldest beyond it are deleted (Zulip caps queues per user too). */
  maxQueues: number;
}

/**
 * A queue starting at the log's settled position: every change before it has committed (so the
 * state read after this has it), every later one is in the queue.
 */
export async function createQueue(
  db: Sequelize,
  user: { id: number; realm_id: number },
  options: RegisterOptions,
): Promise<EventQueue> {
  const evicted: string[] = [];
  const settled = await settledPosition(db);
  const queue = await transact(db, async (t) => {
    // Pruning either sees this queue or has finished: then the queue starts above what it deleted.
    await exec(db, 'SELECT pg_advisory_xact_lock_shared(:ns, 0)', { ns: PRUNE_LOCK }, t);
    const created = await one<EventQueue>(
      db,
      `INSERT INTO chat.event_queues
         (id, user_id, realm_id, acked_position, event_types, client_gravatar, apply_markdown, all_public_streams,
          narrow)
       VALUES (:id, :userId, :realmId,
               GREATEST(CAST(:settled AS bigint), (SELECT position FROM chat.event_log_pruned)),
               CAST(:eventTypes AS jsonb), :clientGravatar, :applyMarkdown, :allPublicStreams, CAST(:narrow AS jsonb))
       RETURNING *`,
      {
        id: randomUUID(),
        userId: user.id,
        realmId: user.realm_id,
        settled,
        eventTypes: options.eventTypes === null ? null : JSON.stringify(options.eventTypes),
        clientGravatar: options.clientGravatar,
        applyMarkdown: options.applyMarkdown,
        allPublicStreams: options.allPublicStreams,
        narrow: options.narrow.length > 0 ? JSON.stringify(options.narrow) : null,
      },
      t,
    );
    if (!created) throw new Error('queue insert returned nothing');
    // Registrations of one user take turns, so the cap holds however many race.
    await exec(db, 'SELECT pg_advisory_xact_lock(:ns, :userId)', { ns: REGISTER_LOCK, userId: user.id }, t);
    const old = await rows<{ id: string }>(
      db,
      `DELETE FROM chat.event_queues WHERE id IN (
         SELECT id FROM chat.event_queues WHERE user_id = :userId AND id <> :self
         ORDER BY created_at DESC, id DESC OFFSET :keep)
       RETURNING id`,
      { userId: user.id, self: created.id, keep: options.maxQueues - 1 },
      t,
    );
    evicted.splice(0, evicted.length, ...old.map((row) => row.id));
    return created;
  });
  // Their waiting polls wake and answer BAD_EVENT_QUEUE_ID.
  wake(db, { queues: evicted });
  return queue;
}

export const badQueue = (queueId: string) =>
  new JsonableError(`Bad event queue ID: ${queueId}`, {
    code: 'BAD_EVENT_QUEUE_ID',
    extra: { queue_id: queueId },
  });

export async function deleteQueue(db: Sequelize, queueId: string, userId: number): Promise<void> {
  const deleted = await retrying(() =>
    rows<{ id: string }>(
      db,
      'DELETE FROM chat.event_queues WHERE id = :queueId AND user_id = :userId RETURNING id',
      { queueId, userId },
    ),
  );
  if (deleted.length === 0) throw badQueue(queueId);
  wake(db, { queues: [queueId] });
}

export async function deleteQueuesOfUser(
  db: Sequelize,
  userId: number,
  transaction: Transaction,
): Promise<void> {
  const deleted = await rows<{ id: string }>(
    db,
    'DELETE FROM chat.event_queues WHERE user_id = :userId RETURNING id',
    { userId },
    transaction,
  );
  // Waiting polls wake, find their queue gone and answer BAD_EVENT_QUEUE_ID now, not at the heartbeat.
  const queues = deleted.map((row) => row.id);
  transaction.afterCommit(() => wake(db, { queues }));
}

/**
 * Removes queues nobody polled within the idle time, then the log entries below what every
 * remaining queue has acknowledged (and below the settled position), recording where it
 * stopped; any process may run it.
 */
export async function expireIdleQueues(db: Sequelize, idleMs: number): Promise<number> {
  const deleted = await retrying(() =>
    rows<{ id: string }>(
      db,
      'DELETE FROM chat.event_queues WHERE last_polled_at < now() - make_interval(secs => :idleSeconds) RETURNING id',
      { idleSeconds: idleMs / 1000 },
    ),
  );
  wake(db, { queues: deleted.map((row) => row.id) });
  const settled = await settledPosition(db);
  await transact(db, async (t) => {
    await exec(db, 'SELECT pg_advisory_xact_lock(:ns, 0)', { ns: PRUNE_LOCK }, t);
    await exec(
      db,
      `WITH bound AS (
         SELECT LEAST(CAST(:settled AS bigint), (SELECT min(acked_position) FROM chat.event_queues)) AS p),
       pruned AS (DELETE FROM chat.event_log WHERE position < (SELECT p FROM bound))
       UPDATE chat.event_log_pruned SET position = GREATEST(position, (SELECT p FROM bound))`,
      { settled },
      t,
    );
  });
  return deleted.length;
}
