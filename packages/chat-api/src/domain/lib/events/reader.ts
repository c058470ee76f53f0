/*
 * Reading queues: GET /events acknowledges what the client has, then answers with the queue's newer
 * events up to the settled position, or waits for a wake-up and, at the heartbeat interval, answers
 * with a heartbeat (an entry of the log for that one queue). Reads of many polls in one turn of the
 * event loop are batched into a few statements (EventReader).
 */
import type { Sequelize } from '@muse/core';
import { receivedThroughSpan } from '../user-messages.ts';
import { matchesEventNarrow, type EventNarrowTerm, type MessageEventBody } from '../event-narrow.ts';
import { appendToLog, type ChatEvent, type LogEntry } from './log.ts';
import type { QueueNotifier } from './notifier.ts';
import { settledPosition } from './positions.ts';
import { badQueue } from './registration.ts';
import { retrying, transact, exec, rows } from '@muse/core';

export interface EventQueueSettings {
  heartbeatMs: number;
  idleMs: number;
}

/** Marks the queue polled; false when it does not exist, belongs to someone else or has expired. */
async function touchQueue(db: Sequelize, queueId: string, userId: number, idleMs: number): Promise<boolean> {
  const touched = await retrying(() =>
    rows(
      db,
      `UPDATE chat.event_queues SET last_polled_at = now()
       WHERE id = :queueId AND user_id = :userId AND last_polled_at > now() - make_interval(secs => :idleSeconds)
       RETURNING id`,
      { queueId, userId, idleSeconds: idleMs / 1000 },
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

interface Match {
  queue_id: string;
  user_id: number;
  narrow: EventNarrowTerm[] | null;
  realm_id: number;
  last_event_id: number;
  acked_position: string;
  position: string | null;
}

/**
 * Reads queues' events after given ids, batching the reads asked for in the same turn of the
 * event loop: one wake-up of a thousand waiting polls costs three statements, not a thousand.
 * The recipients of the new log entries are unnested once and joined to the queues; each
 * event's body is read once, however many queues get it.
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
    try {
      const settled = await settledPosition(this.db);
      const matches = await this.matches([...new Set(batch.map((r) => r.queueId))], settled);
      const bodies = await this.bodies(matches);
      const acks: { id: string; from: number; to: number; position: string }[] = [];
      for (const request of batch) {
        const mine = matches.get(request.queueId);
        if (!mine) {
          request.resolve(undefined);
          continue;
        }
        const first = mine[0]!;
        const events: ChatEvent[] = [];
        let acked: { to: number; position: string } | undefined;
        mine.forEach((match, i) => {
          if (match.position === null) return;
          const id = first.last_event_id + i + 1;
          const body = bodies.get(`${match.realm_id}/${match.position}`)!;
          if (id <= request.after) acked = { to: id, position: match.position };
          else if (keeps(match, body)) events.push({ ...body, id });
          // Outside a narrowed queue's narrow: skipped, and acknowledged when nothing before it is pending.
          else if (events.length === 0) acked = { to: id, position: match.position };
        });
        if (acked) acks.push({ id: request.queueId, from: first.last_event_id, ...acked });
        request.resolve(events);
      }
      await this.acknowledge(acks);
    } catch (error) {
      for (const r of batch) r.reject(error);
    }
  }

  /** Per live queue, the positions of its events after its acknowledged one, up to `settled`, in order. */
  private async matches(queueIds: string[], settled: number): Promise<Map<string, Match[]>> {
    const found = await rows<Match>(
      this.db,
      `WITH q AS (
         SELECT id, user_id, realm_id, event_types, last_event_id, acked_position, narrow
         FROM chat.event_queues WHERE id IN (:queueIds)),
       lo AS (SELECT realm_id, min(acked_position) AS after FROM q GROUP BY realm_id),
       e AS MATERIALIZED (
         SELECT l.realm_id, l.position, l.event_type, l.user_ids, l.queue_id, l.stream_id, l.message_id,
                l.excluded_ids
         FROM chat.event_log l JOIN lo ON l.realm_id = lo.realm_id AND l.position > lo.after
         WHERE l.position <= :settled),
       m AS (
         SELECT e.queue_id, e.position FROM e WHERE e.queue_id IS NOT NULL
         UNION ALL
         SELECT q.id, e.position FROM e CROSS JOIN LATERAL unnest(e.user_ids) AS u(user_id)
         JOIN q ON q.user_id = u.user_id AND q.realm_id = e.realm_id
         WHERE q.event_types IS NULL OR q.event_types ? e.event_type
         UNION ALL
         -- A channel message named by reference: each queue's user is looked up in the spans.
         SELECT q.id, e.position FROM e JOIN q ON q.realm_id = e.realm_id AND e.position > q.acked_position
         WHERE e.stream_id IS NOT NULL AND (q.event_types IS NULL OR q.event_types ? e.event_type)
           AND q.user_id <> ALL (e.excluded_ids)
           AND ${receivedThroughSpan('q.user_id', 'e.stream_id', 'e.message_id')})
       SELECT q.id AS queue_id, q.user_id, q.narrow, q.realm_id, q.last_event_id, q.acked_position, m.position
       FROM q LEFT JOIN m ON m.queue_id = q.id AND m.position > q.acked_position
       ORDER BY q.id, m.position`,
      { queueIds, settled },
    );
    const byQueue = new Map<string, Match[]>();
    for (const row of found) {
      const list = byQueue.get(row.queue_id);
      if (list) list.push(row);
      else byQueue.set(row.queue_id, [row]);
    }
    return byQueue;
  }

  private async bodies(matches: Map<string, Match[]>): Promise<Map<string, ChatEvent>> {
    const wanted = new Map<string, Match>();
    for (const list of matches.values())
      for (const m of list) if (m.position !== null) wanted.set(`${m.realm_id}/${m.position}`, m);
    if (wanted.size === 0) return new Map();
    const found = await rows<{ realm_id: number; position: string; event: ChatEvent }>(
      this.db,
      `SELECT l.realm_id, l.position, l.event FROM chat.event_log l
       JOIN unnest(ARRAY[:realms]::int[], ARRAY[:positions]::bigint[]) AS w(realm_id, position)
         ON l.realm_id = w.realm_id AND l.position = w.position`,
      {
        realms: [...wanted.values()].map((m) => m.realm_id),
        positions: [...wanted.values()].map((m) => m.position),
      },
    );
    return new Map(found.map((row) => [`${row.realm_id}/${row.position}`, row.event]));
  }

  /** Moves cursors past what clients acknowledged (unless another poll of the queue moved it first). */
  private async acknowledge(
    acks: { id: string; from: number; to: number; position: string }[],
  ): Promise<void> {
    if (acks.length === 0) return;
    await retrying(() =>
      exec(
        this.db,
        `UPDATE chat.event_queues q SET last_event_id = a.upto, acked_position = a.position
         FROM unnest(ARRAY[:ids]::text[], ARRAY[:froms]::int[], ARRAY[:tos]::int[], ARRAY[:positions]::bigint[])
           AS a(id, since, upto, position)
         WHERE q.id = a.id AND q.last_event_id = a.since`,
        {
          ids: acks.map((a) => a.id),
          froms: acks.map((a) => a.from),
          tos: acks.map((a) => a.to),
          positions: acks.map((a) => a.position),
        },
      ),
    );
  }
}

/** Whether a queue gets the event: a narrowed queue only the message events matching its narrow. */
function keeps(match: Match, event: ChatEvent): boolean {
  if (!match.narrow || event.type !== 'message') return true;
  return matchesEventNarrow(match.narrow, match.user_id, event as unknown as MessageEventBody);
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
 * there are none and the client may wait, waits for a wake-up, and after the heartbeat
 * interval appends a heartbeat so the client learns the queue is still alive.
 */
export async function getEvents(
  db: Sequelize,
  notifier: QueueNotifier,
  settings: EventQueueSettings,
  request: {
    queueId: string;
    userId: number;
    realmId: number;
    lastEventId: number | undefined;
    dontBlock: boolean;
    signal: AbortSignal;
  },
): Promise<ChatEvent[]> {
  const { queueId, userId, realmId } = request;
  const after = request.lastEventId ?? -1;
  if (!request.dontBlock) await notifier.start();
  const deadline = Date.now() + settings.heartbeatMs;
  const target = { id: queueId, userId, realmId };
  // Listen before touching and reading: a deletion or an event committed after either still wakes us.
  let waiting = request.dontBlock ? undefined : notifier.wait(target, deadline - Date.now(), request.signal);
  if (!(await touchQueue(db, queueId, userId, settings.idleMs))) {
    waiting?.cancel();
    throw badQueue(queueId);
  }
  for (;;) {
    const events = await readEvents(db, queueId, after);
    // Deleted (DELETE /events, deactivation, eviction) while we waited: tell the client, as Zulip does.
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
      await transact(db, (t) => appendToLog(db, t, realmId, [heartbeat(queueId)]));
      return (await readEvents(db, queueId, after)) ?? [];
    }
    waiting = notifier.wait(target, deadline - Date.now(), request.signal);
  }
}

/** A heartbeat is an entry of the log for one queue, so it takes the queue's next event id. */
const heartbeat = (queueId: string): LogEntry => ({
  type: 'heartbeat',
  users: null,
  queue: queueId,
  channel: null,
  json: '{"type":"heartbeat"}',
});
