import { randomUUID } from 'node:crypto';
import { EventBus, type Sequelize } from '@muse/core';
import { JsonableError } from '../http/errors.ts';
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

/**
 * Appends `event` to every queue of `userIds` that asked for its type, inside the caller's
 * transaction, and announces the queues on commit. Event ids increase per queue because
 * the queue row's counter is bumped by the same statement (the row lock orders producers).
 */
export async function sendEvent(
  db: Sequelize,
  transaction: Transaction,
  userIds: Iterable<number>,
  event: ChatEvent,
): Promise<void> {
  const users = [...new Set(userIds)];
  if (users.length === 0) return;
  // A statement of its own: the UPDATE below must take its snapshot after the lock is granted.
  await exec(
    db,
    'SELECT pg_advisory_xact_lock_shared(:ns, u) FROM unnest(ARRAY[:users]::int[]) AS u ORDER BY u',
    { ns: PRODUCING_LOCK, users },
    transaction,
  );
  const touched = await rows<{ queue_id: string }>(
    db,
    `WITH q AS (
       UPDATE chat.event_queues SET last_event_id = last_event_id + 1
       WHERE user_id IN (:users) AND (event_types IS NULL OR event_types ? :type)
       RETURNING id, last_event_id)
     INSERT INTO chat.queue_events (queue_id, event_id, event)
     SELECT id, last_event_id, jsonb_set(CAST(:event AS jsonb), '{id}', to_jsonb(last_event_id)) FROM q
     RETURNING queue_id`,
    { users, type: event.type, event: JSON.stringify(event) },
    transaction,
  );
  await announce(
    db,
    touched.map((row) => row.queue_id),
    transaction,
  );
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
}

export async function createQueue(
  db: Sequelize,
  userId: number,
  options: RegisterOptions,
): Promise<EventQueue> {
  return db.transaction(async (t) => {
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
    // Waits for producers that appended their events before this queue existed to commit.
    await exec(db, 'SELECT pg_advisory_xact_lock(:ns, :userId)', { ns: PRODUCING_LOCK, userId }, t);
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

/** The queue, if it exists, belongs to the user and has not expired. */
async function liveQueue(
  db: Sequelize,
  queueId: string,
  userId: number,
  idleMs: number,
): Promise<EventQueue> {
  const queue = await one<EventQueue>(
    db,
    `SELECT * FROM chat.event_queues WHERE id = :queueId AND user_id = :userId
       AND last_polled_at > now() - make_interval(secs => :idleSeconds)`,
    { queueId, userId, idleSeconds: idleMs / 1000 },
  );
  if (!queue) throw badQueue(queueId);
  return queue;
}

async function readEvents(db: Sequelize, queueId: string, after: number): Promise<ChatEvent[]> {
  const found = await rows<{ event: ChatEvent }>(
    db,
    'SELECT event FROM chat.queue_events WHERE queue_id = :queueId AND event_id > :after ORDER BY event_id',
    { queueId, after },
  );
  return found.map((row) => row.event);
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
  const queue = await liveQueue(db, queueId, userId, settings.idleMs);
  const after = request.lastEventId ?? -1;
  await exec(
    db,
    `WITH pruned AS (DELETE FROM chat.queue_events WHERE queue_id = :queueId AND event_id <= :after)
     UPDATE chat.event_queues SET last_polled_at = now() WHERE id = :queueId`,
    { queueId, after },
  );
  if (!request.dontBlock) await notifier.start();
  const deadline = Date.now() + settings.heartbeatMs;
  for (;;) {
    // Listen before reading, so an event committed in between still wakes us.
    const waiting = request.dontBlock
      ? undefined
      : notifier.wait(queueId, deadline - Date.now(), request.signal);
    const events = await readEvents(db, queue.id, after);
    if (events.length > 0 || !waiting) return events;
    // Deleted (DELETE /events, deactivation) since it was found, or while we waited: tell the
    // client, as Zulip does. Checked once listening, so a deletion in between is not missed.
    if (!(await one(db, 'SELECT 1 FROM chat.event_queues WHERE id = :queueId', { queueId }))) {
      waiting.cancel();
      throw badQueue(queueId);
    }
    await waiting.ready;
    if (request.signal.aborted) return [];
    if (Date.now() >= deadline) {
      const late = await readEvents(db, queue.id, after);
      if (late.length > 0) return late;
      await db.transaction((t) => appendHeartbeat(db, t, queueId));
      return readEvents(db, queue.id, after);
    }
  }
}

async function appendHeartbeat(db: Sequelize, transaction: Transaction, queueId: string): Promise<void> {
  await exec(
    db,
    `WITH q AS (UPDATE chat.event_queues SET last_event_id = last_event_id + 1, last_polled_at = now()
                WHERE id = :queueId RETURNING id, last_event_id)
     INSERT INTO chat.queue_events (queue_id, event_id, event)
     SELECT id, last_event_id, jsonb_build_object('type', 'heartbeat', 'id', last_event_id) FROM q`,
    { queueId },
    transaction,
  );
}

export async function deleteQueue(db: Sequelize, queueId: string, userId: number): Promise<void> {
  const deleted = await rows<{ id: string }>(
    db,
    'DELETE FROM chat.event_queues WHERE id = :queueId AND user_id = :userId RETURNING id',
    { queueId, userId },
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
    'DELETE FROM chat.event_queues WHERE user_id = :userId RETURNING id',
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
  const deleted = await rows<{ id: string }>(
    db,
    'DELETE FROM chat.event_queues WHERE last_polled_at < now() - make_interval(secs => :idleSeconds) RETURNING id',
    { idleSeconds: idleMs / 1000 },
  );
  await announce(
    db,
    deleted.map((row) => row.id),
  );
  return deleted.length;
}
