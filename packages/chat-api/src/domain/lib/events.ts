// One file on purpose (about 700 lines): the log, the queues that are cursors over it and the
// wake-ups keep one invariant together (readers deliver only settled positions, so a reader never
// skips an event that commits later); each part is read against the others.
import { randomUUID } from 'node:crypto';
import { EventBus, type MessageBus, type Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import { beforeCommit, retrying, transact } from './transact.ts';
import { exec, one, rows, type Transaction } from '../sql.ts';
import { receivedThroughSpan, spanCovers } from './user-messages.ts';
import { matchesEventNarrow, type EventNarrowTerm, type MessageEventBody } from './event-narrow.ts';

/*
 * The event system. An event is stored once, in its organization's event log, with the ids of
 * the users it is for (4 bytes each), or, for a large channel's message, the message itself
 * (its receivers follow from their subscription spans when the log is read); nobody's queue is
 * written when it is produced. A queue is a cursor over the log: the last event its client
 * acknowledged, both as a log position and as the queue's own event id (Zulip's per-queue ids,
 * 0, 1, 2, …), filtered by user and event type when read. Positions come from one sequence,
 * taken by the transaction's last statement, so producers commit side by side; since a later
 * position may commit first, readers deliver only up to the settled position (every position
 * below it committed or void): a reader never skips an event that commits later, and a queue's
 * events keep the order their transactions took positions in. Waiting polls are woken after commit,
 * through the event bus, batched per process; a poll always reads the log itself, so a lost
 * wake-up only delays it to its heartbeat.
 */

/** Bus channel announcing "there is something new for these queues, users or organizations". */
const CHANNEL = 'chat_queue_events';
/** Beyond this many ids in one announcement, whole organizations (or everyone) are woken. */
const MAX_IDS_PER_WAKE = 150;
/** Advisory-lock namespace serializing one user's registrations (the queue cap). */
const REGISTER_LOCK = 0x63686174;
/** Advisory lock (this namespace, key 0) pruning takes alone and registrations share. */
const PRUNE_LOCK = 0x7072756e;

export type ChatEvent = { type: string } & Record<string, unknown>;

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

/** A channel message's receivers (whose subscription span covers it), but `excluded`. */
export interface ChannelAudience {
  streamId: number;
  messageId: number;
  /** Receivers who get an entry of their own (the sender, the mentioned). */
  excluded: number[];
}

/** For `users`, for one queue (heartbeats), or for a channel message's receivers. */
interface LogEntry {
  type: string;
  users: number[] | null;
  queue: string | null;
  channel: ChannelAudience | null;
  json: string;
}

interface Wake {
  queues?: string[];
  realms?: { id: number; users?: number[] }[];
  all?: boolean;
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
async function appendToLog(
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

/** Per database handle: a position known settled (see settledPosition). */
const knownSettled = new WeakMap<Sequelize, number>();
/** Positions read per step while looking for the settled position. */
const SETTLE_STEP = 500;

/**
 * The log's settled position: every position up to it is committed or void for good, so readers
 * may deliver entries up to it and nothing can appear below it later. A gap below a committed
 * entry belongs to a transaction still committing, or to one that rolled back (or a sequence
 * value lost in a crash): a void entry is inserted there, which waits for the transaction
 * writing that position and lands only if there is none. The search starts at what this process
 * already knows (at first, the last position any queue acknowledged, settled when delivered),
 * or where pruning stopped (`chat.event_log_pruned`, settled too), whichever is higher.
 */
async function settledPosition(db: Sequelize): Promise<number> {
  let settled =
    knownSettled.get(db) ??
    Number(
      (await one<{ p: string }>(db, 'SELECT COALESCE(max(acked_position), 0) AS p FROM chat.event_queues'))!
        .p,
    );
  for (;;) {
    const found = await rows<{ start: string; position: string | null }>(
      db,
      `WITH s AS (SELECT GREATEST(CAST(:settled AS bigint), (SELECT position FROM chat.event_log_pruned)) AS p)
       SELECT s.p AS start, l.position FROM s LEFT JOIN LATERAL (
         SELECT position FROM chat.event_log WHERE position > s.p ORDER BY position LIMIT :step) l ON true
       ORDER BY l.position`,
      { settled, step: SETTLE_STEP },
    );
    settled = Number(found[0]!.start);
    const positions = found.flatMap((row) => (row.position === null ? [] : [Number(row.position)]));
    let next = 0;
    while (next < positions.length && positions[next] === settled + 1) settled = positions[next++]!;
    if (next === positions.length) {
      if (positions.length < SETTLE_STEP) break;
      continue;
    }
    // A gap below a committed entry: wait for whoever writes it, or void it.
    await exec(
      db,
      `INSERT INTO chat.event_log (realm_id, position, event_type, event) VALUES (0, :gap, 'void', '{}')
       ON CONFLICT (position) DO NOTHING`,
      { gap: settled + 1 },
    );
  }
  knownSettled.set(db, Math.max(knownSettled.get(db) ?? 0, settled));
  return settled;
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

interface Waiter {
  queueId: string;
  userId: number;
  realmId: number;
  done: () => void;
}

const notifiers = new WeakMap<Sequelize, QueueNotifier>();

/** Announces after commit: through this process's notifier (batched), else straight to the bus. */
function wake(db: Sequelize, what: Wake): void {
  if (!what.all && !what.queues?.length && !what.realms?.length) return;
  const notifier = notifiers.get(db);
  if (notifier) notifier.announce(what);
  else void EventBus.publish(db, CHANNEL, what).catch(() => {}); // a catch-up read covers a lost one
}

/**
 * The process's side of wake-ups: announcements of the process are merged and published once
 * per turn of the event loop, after their transactions committed; polls waiting in the process
 * are woken by announcements from any process.
 */
export class QueueNotifier {
  private readonly byQueue = new Map<string, Set<Waiter>>();
  private readonly byUser = new Map<number, Set<Waiter>>();
  private readonly byRealm = new Map<number, Set<Waiter>>();
  private starting: Promise<() => Promise<void>> | undefined;
  private readonly bus: MessageBus;
  private outgoing: Wake[] = [];

  constructor(bus: MessageBus, db?: Sequelize) {
    this.bus = bus;
    if (db) notifiers.set(db, this);
  }

  /** Idempotent; every long-poll awaits it, so the subscription is in place before anyone waits. */
  async start(): Promise<void> {
    this.starting ??= this.bus
      .subscribe(CHANNEL, (payload) => this.wake(payload as Wake))
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

  /** Queues `what` for the next batch of this process. */
  announce(what: Wake): void {
    if (this.outgoing.push(what) === 1) setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.outgoing;
    this.outgoing = [];
    try {
      await this.bus.publish(CHANNEL, merge(batch));
    } catch {
      // The waiting polls read the log again at their heartbeat.
    }
  }

  private wake(payload: Wake | undefined): void {
    const woken = new Set<Waiter>();
    const add = (set: Set<Waiter> | undefined) => set?.forEach((w) => woken.add(w));
    if (!payload || payload.all) for (const set of this.byQueue.values()) add(set);
    for (const id of payload?.queues ?? []) add(this.byQueue.get(id));
    for (const realm of payload?.realms ?? []) {
      if (!realm.users) add(this.byRealm.get(realm.id));
      else for (const user of realm.users) add(this.byUser.get(user));
    }
    for (const waiter of woken) waiter.done();
  }

  /** Resolves on the next announcement concerning the queue, after `ms`, or when `signal` aborts. */
  wait(
    queue: { id: string; userId: number; realmId: number },
    ms: number,
    signal: AbortSignal,
  ): { ready: Promise<void>; cancel: () => void } {
    const waiter: Waiter = {
      queueId: queue.id,
      userId: queue.userId,
      realmId: queue.realmId,
      done: () => {},
    };
    const indexes: [Map<string | number, Set<Waiter>>, string | number][] = [
      [this.byQueue as Map<string | number, Set<Waiter>>, queue.id],
      [this.byUser as Map<string | number, Set<Waiter>>, queue.userId],
      [this.byRealm as Map<string | number, Set<Waiter>>, queue.realmId],
    ];
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(() => waiter.done(), ms);
      waiter.done = () => {
        clearTimeout(timer);
        for (const [index, key] of indexes) {
          const set = index.get(key);
          set?.delete(waiter);
          if (set?.size === 0) index.delete(key);
        }
        signal.removeEventListener('abort', waiter.done);
        resolve();
      };
      signal.addEventListener('abort', waiter.done);
    });
    for (const [index, key] of indexes) {
      let set = index.get(key);
      if (!set) index.set(key, (set = new Set()));
      set.add(waiter);
    }
    return { ready, cancel: () => waiter.done() };
  }
}

/** One announcement for a batch; past the payload budget, whole organizations or everyone. */
function merge(batch: Wake[]): Wake {
  if (batch.some((w) => w.all)) return { all: true };
  const queues = [...new Set(batch.flatMap((w) => w.queues ?? []))];
  const realms = new Map<number, Set<number> | null>();
  for (const realm of batch.flatMap((w) => w.realms ?? [])) {
    const known = realms.get(realm.id);
    if (known === null || !realm.users) realms.set(realm.id, null);
    else realms.set(realm.id, new Set([...(known ?? []), ...realm.users]));
  }
  let ids = queues.length;
  const merged: Wake = { queues, realms: [] };
  for (const [id, users] of realms) {
    ids += users?.size ?? 0;
    merged.realms!.push(users && ids <= MAX_IDS_PER_WAKE ? { id, users: [...users] } : { id });
  }
  return queues.length > MAX_IDS_PER_WAKE ? { all: true } : merged;
}

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
