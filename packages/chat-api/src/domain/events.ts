import { randomUUID } from 'node:crypto';
import { EventBus, type Sequelize } from '@muse/core';
import { JsonableError } from '../http/errors.ts';
import { beforeCommit, retrying, transact } from './lib/transact.ts';
import { exec, one, rows, type Transaction } from './sql.ts';

/** NOTIFY channel announcing "these queues have new events"; any process may be waiting on them. */
const CHANNEL = 'chat_queue_events';
/** Postgres caps NOTIFY payloads at 8000 bytes; beyond this many ids we tell everyone to look. */
const MAX_IDS_PER_NOTIFY = 150;

/**
 * Advisory-lock namespace of "events for this user are being produced". Producers hold it
 * shared until they commit; registration takes it exclusively once its queue exists, so every
 * producer either saw the new queue or has committed before the initial state is read.
 */
const PRODUCING_LOCK = 0x63686174;

export type ChatEvent = { type: string } & Record<string, unknown>;

export interface EventQueue {
  id: string;
  user_id: number;
  event_types: string[] | null;
  client_gravatar: boolean;
  apply_markdown: boolean;
  all_public_streams: boolean;
  last_event_id: number;
  last_polled_at: Date;
}

interface PendingEvent {
  users: number[];
  type: string;
  json: string;
}

const pendingEvents = new WeakMap<Transaction, PendingEvent[]>();

/**
 * Appends `event` to every queue of `userIds` that asked for its type, when the caller's
 * transaction (opened with `transact`) commits. Every event of a transaction is written by one
 * hook run just before commit, which locks all the queue rows it touches at once, in id order:
 * producers take queue rows in one global order, so they cannot deadlock each other.
 */
export async function sendEvent(
  db: Sequelize,
  transaction: Transaction,
  userIds: Iterable<number>,
  event: ChatEvent,
): Promise<void> {
  const users = [...new Set(userIds)];
  if (users.length === 0) return;
  let pending = pendingEvents.get(transaction);
  if (!pending) {
    const list: PendingEvent[] = [];
    beforeCommit(transaction, () => appendEvents(db, transaction, list));
    pendingEvents.set(transaction, (pending = list));
  }
  // Serialized now: the caller may change its object before the transaction commits.
  pending.push({ users, type: event.type, json: JSON.stringify(event) });
}

/** Writes a transaction's events, in the order they were sent, and announces their queues. */
async function appendEvents(db: Sequelize, transaction: Transaction, pending: PendingEvent[]): Promise<void> {
  const users = [...new Set(pending.flatMap((p) => p.users))].sort((a, b) => a - b);
  // A statement of its own: the reads below must take their snapshot after the lock is granted.
  await exec(
    db,
    'SELECT pg_advisory_xact_lock_shared(:ns, u) FROM unnest(ARRAY[:users]::int[]) AS u ORDER BY u',
    { ns: PRODUCING_LOCK, users },
    transaction,
  );
  // Every queue row of the transaction, in id order, before any is updated.
  await exec(
    db,
    'SELECT id FROM chat.event_queues WHERE user_id IN (:users) ORDER BY id FOR UPDATE',
    { users },
    transaction,
  );
  const touched = new Set<string>();
  for (const event of pending) {
    const queues = await rows<{ queue_id: string }>(
      db,
      `WITH q AS (
         UPDATE chat.event_queues e SET last_event_id = e.last_event_id + 1
         WHERE user_id IN (:users) AND (event_types IS NULL OR event_types ? :type)
         RETURNING e.id, e.last_event_id)
       INSERT INTO chat.queue_events (queue_id, event_id, event)
       SELECT id, last_event_id, jsonb_set(CAST(:event AS jsonb), '{id}', to_jsonb(last_event_id)) FROM q
       RETURNING queue_id`,
      { users: event.users, type: event.type, event: event.json },
      transaction,
    );
    for (const row of queues) touched.add(row.queue_id);
  }
  await announce(db, [...touched], transaction);
}

/** Variant for events whose payload differs per recipient (e.g. what each may see). */
export async function sendEventsPerUser(
  db: Sequelize,
  transaction: Transaction,
  recipients: Iterable<[number, ChatEvent]>,
): Promise<void> {
  for (const [userId, event] of recipients) await sendEvent(db, transaction, [userId], event);
}

async function announce(db: Sequelize, queueIds: string[], transaction?: Transaction): Promise<void> {
  if (queueIds.length === 0) return;
  const payload = queueIds.length > MAX_IDS_PER_NOTIFY ? { all: true } : { queues: queueIds };
  await EventBus.publish(db, CHANNEL, payload, transaction);
}

export interface RegisterOptions {
  eventTypes: string[] | null;
  clientGravatar: boolean;
  applyMarkdown: boolean;
  allPublicStreams: boolean;
  /** Queues the user may hold; the oldest beyond it are deleted (Zulip caps queues per user too). */
  maxQueues: number;
}

export async function createQueue(
  db: Sequelize,
  userId: number,
  options: RegisterOptions,
): Promise<EventQueue> {
  return transact(db, async (t) => {
    const queue = await one<EventQueue>(
      db,
      `INSERT INTO chat.event_queues (id, user_id, event_types, client_gravatar, apply_markdown, all_public_streams)
       VALUES (:id, :userId, CAST(:eventTypes AS jsonb), :clientGravatar, :applyMarkdown, :allPublicStreams) RETURNING *`,
      {
        id: randomUUID(),
        userId,
        eventTypes: options.eventTypes === null ? null : JSON.stringify(options.eventTypes),
        clientGravatar: options.clientGravatar,
        applyMarkdown: options.applyMarkdown,
        allPublicStreams: options.allPublicStreams,
      },
      t,
    );
    if (!queue) throw new Error('queue insert returned nothing');
    // Waits for producers that appended their events before this queue existed to commit; also
    // makes registrations of one user take turns, so the cap below holds however many race.
    await exec(db, 'SELECT pg_advisory_xact_lock(:ns, :userId)', { ns: PRODUCING_LOCK, userId }, t);
    const evicted = await rows<{ id: string }>(
      db,
      // Locked in id order, as producers lock queue rows.
      `DELETE FROM chat.event_queues WHERE id IN (
         SELECT id FROM chat.event_queues WHERE id IN (
           SELECT id FROM chat.event_queues WHERE user_id = :userId AND id <> :self
           ORDER BY created_at DESC, id DESC OFFSET :keep)
         ORDER BY id FOR UPDATE)
       RETURNING id`,
      { userId, self: queue.id, keep: options.maxQueues - 1 },
      t,
    );
    // Their waiting polls wake and answer BAD_EVENT_QUEUE_ID.
    await announce(
      db,
      evicted.map((row) => row.id),
      t,
    );
    return queue;
  });
}

export const badQueue = (queueId: string) =>
  new JsonableError(`Bad event queue ID: ${queueId}`, {
    code: 'BAD_EVENT_QUEUE_ID',
    extra: { queue_id: queueId },
  });

/** Waiters of this process, woken by NOTIFY from any process. */
export class QueueNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();
  private starting: Promise<() => Promise<void>> | undefined;
  private readonly bus: EventBus;

  constructor(bus: EventBus) {
    this.bus = bus;
  }

  /** Idempotent; every long-poll awaits it, so the LISTEN is in place before anyone waits. */
  async start(): Promise<void> {
    this.starting ??= this.bus
      .subscribe(CHANNEL, (payload) => this.wake(payload))
      .catch((error: unknown) => {
        this.starting = undefined; // the next long-poll tries again
        throw error;
      });
    await this.starting;
  }

  async stop(): Promise<void> {
    const unsubscribe = await this.starting;
    this.starting = undefined;
    await unsubscribe?.();
  }

  private wake(payload: unknown): void {
    const { queues, all } = (payload ?? {}) as { queues?: string[]; all?: boolean };
    const ids = all ? [...this.waiters.keys()] : (queues ?? []);
    for (const id of ids) for (const resolve of this.waiters.get(id) ?? []) resolve();
  }

  /** Resolves on the next announcement for the queue, after `ms`, or when `signal` aborts. */
  wait(queueId: string, ms: number, signal: AbortSignal): { ready: Promise<void>; cancel: () => void } {
    let set = this.waiters.get(queueId);
    if (!set) this.waiters.set(queueId, (set = new Set()));
    const waiters = set;
    let done: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), ms);
      done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(queueId) === waiters) this.waiters.delete(queueId);
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done);
    });
    waiters.add(done);
    return { ready, cancel: () => done() };
  }
}

export interface EventQueueSettings {
  heartbeatMs: number;
  idleMs: number;
}

/**
 * Marks the queue polled and drops the events up to `after` (acknowledged), in one statement;
 * false when the queue does not exist, belongs to someone else or has expired.
 */
async function touchQueue(
  db: Sequelize,
  queueId: string,
  userId: number,
  after: number,
  idleMs: number,
): Promise<boolean> {
  const touched = await retrying(() =>
    rows(
      db,
      `WITH q AS (
       UPDATE chat.event_queues SET last_polled_at = now()
       WHERE id = :queueId AND user_id = :userId AND last_polled_at > now() - make_interval(secs => :idleSeconds)
       RETURNING id),
     pruned AS (DELETE FROM chat.queue_events e USING q WHERE e.queue_id = q.id AND e.event_id <= :after)
     SELECT id FROM q`,
      { queueId, userId, after, idleSeconds: idleMs / 1000 },
    ),
  );
  return touched.length > 0;
}

interface ReadRequest {
  queueId: string;
  after: number;
  resolve: (events: ChatEvent[] | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads queues' events after given ids, batching the reads asked for in the same turn of the
 * event loop into one statement: one announcement wakes every waiting poll of the process at
 * once, and a thousand polls then cost one query rather than a thousand.
 */
class EventReader {
  private pending: ReadRequest[] = [];
  private readonly db: Sequelize;

  constructor(db: Sequelize) {
    this.db = db;
  }

  /** The queue's events after `after`, in order; undefined when the queue no longer exists. */
  read(queueId: string, after: number): Promise<ChatEvent[] | undefined> {
    return new Promise((resolve, reject) => {
      if (this.pending.push({ queueId, after, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const key = (queueId: string, after: number | string) => `${queueId}/${after}`;
    try {
      const found = await rows<{ queue_id: string; after: string; live: boolean; event: ChatEvent | null }>(
        this.db,
        // bigint: a client's last_event_id may be any integer.
        `SELECT w.queue_id, w.after, q.id IS NOT NULL AS live, e.event
         FROM unnest(ARRAY[:queueIds]::text[], ARRAY[:afters]::bigint[]) AS w(queue_id, after)
         LEFT JOIN chat.event_queues q ON q.id = w.queue_id
         LEFT JOIN chat.queue_events e ON e.queue_id = q.id AND e.event_id > w.after
         ORDER BY w.queue_id, w.after, e.event_id`,
        { queueIds: batch.map((r) => r.queueId), afters: batch.map((r) => r.after) },
      );
      const events = new Map<string, ChatEvent[] | undefined>();
      for (const row of found) {
        const k = key(row.queue_id, row.after);
        if (!row.live) events.set(k, undefined);
        else if (!events.has(k)) events.set(k, row.event ? [row.event] : []);
        else if (row.event) events.get(k)?.push(row.event);
      }
      for (const r of batch) r.resolve(events.get(key(r.queueId, r.after)));
    } catch (error) {
      for (const r of batch) r.reject(error);
    }
  }
}

const readers = new WeakMap<Sequelize, EventReader>();

/** The queue's events after `after` (read in a batch with others'); undefined when it no longer exists. */
function readEvents(db: Sequelize, queueId: string, after: number): Promise<ChatEvent[] | undefined> {
  let reader = readers.get(db);
  if (!reader) readers.set(db, (reader = new EventReader(db)));
  return reader.read(queueId, after);
}

/**
 * GET /events: acknowledges events up to `lastEventId`, then answers with newer ones; when
 * there are none and the client may wait, waits for an announcement, and after the heartbeat
 * interval appends a heartbeat so the client learns the queue is still alive.
 */
export async function getEvents(
  db: Sequelize,
  notifier: QueueNotifier,
  settings: EventQueueSettings,
  request: {
    queueId: string;
    userId: number;
    lastEventId: number | undefined;
    dontBlock: boolean;
    signal: AbortSignal;
  },
): Promise<ChatEvent[]> {
  const { queueId, userId } = request;
  const after = request.lastEventId ?? -1;
  if (!request.dontBlock) await notifier.start();
  const deadline = Date.now() + settings.heartbeatMs;
  // Listen before touching and reading: a deletion or an event committed after either still wakes us.
  let waiting = request.dontBlock ? undefined : notifier.wait(queueId, deadline - Date.now(), request.signal);
  if (!(await touchQueue(db, queueId, userId, after, settings.idleMs))) {
    waiting?.cancel();
    throw badQueue(queueId);
  }
  for (;;) {
    const events = await readEvents(db, queueId, after);
    // Deleted (DELETE /events, deactivation) while we waited: tell the client, as Zulip does.
    if (!events) {
      waiting?.cancel();
      throw badQueue(queueId);
    }
    if (events.length > 0 || !waiting) {
      waiting?.cancel();
      return events;
    }
    await waiting.ready;
    if (request.signal.aborted) return [];
    if (Date.now() >= deadline) {
      const late = await readEvents(db, queueId, after);
      if (late?.length) return late;
      await retrying(() => appendHeartbeat(db, queueId));
      return (await readEvents(db, queueId, after)) ?? [];
    }
    waiting = notifier.wait(queueId, deadline - Date.now(), request.signal);
  }
}

async function appendHeartbeat(db: Sequelize, queueId: string): Promise<void> {
  await exec(
    db,
    `WITH q AS (UPDATE chat.event_queues SET last_event_id = last_event_id + 1, last_polled_at = now()
                WHERE id = :queueId RETURNING id, last_event_id)
     INSERT INTO chat.queue_events (queue_id, event_id, event)
     SELECT id, last_event_id, jsonb_build_object('type', 'heartbeat', 'id', last_event_id) FROM q`,
    { queueId },
  );
}

export async function deleteQueue(db: Sequelize, queueId: string, userId: number): Promise<void> {
  const deleted = await retrying(() =>
    rows<{ id: string }>(
      db,
      'DELETE FROM chat.event_queues WHERE id = :queueId AND user_id = :userId RETURNING id',
      { queueId, userId },
    ),
  );
  if (deleted.length === 0) throw badQueue(queueId);
  await announce(db, [queueId]);
}

export async function deleteQueuesOfUser(
  db: Sequelize,
  userId: number,
  transaction: Transaction,
): Promise<void> {
  const deleted = await rows<{ id: string }>(
    db,
    // Rows locked in id order, as every producer locks them.
    `DELETE FROM chat.event_queues WHERE id IN
       (SELECT id FROM chat.event_queues WHERE user_id = :userId ORDER BY id FOR UPDATE)
     RETURNING id`,
    { userId },
    transaction,
  );
  // Waiting polls wake, find their queue gone and answer BAD_EVENT_QUEUE_ID now, not at the heartbeat.
  await announce(
    db,
    deleted.map((row) => row.id),
    transaction,
  );
}

/** Removes queues nobody polled within the idle time; any process may run it. */
export async function expireIdleQueues(db: Sequelize, idleMs: number): Promise<number> {
  // Queues being written to right now are skipped, not waited for: the next round takes them.
  const deleted = await retrying(() =>
    rows<{ id: string }>(
      db,
      `DELETE FROM chat.event_queues WHERE id IN
         (SELECT id FROM chat.event_queues WHERE last_polled_at < now() - make_interval(secs => :idleSeconds)
          ORDER BY id FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      { idleSeconds: idleMs / 1000 },
    ),
  );
  await announce(
    db,
    deleted.map((row) => row.id),
  );
  return deleted.length;
}
