// One file on purpose (about 360 lines): a scheduled message's whole life (create, edit, delete,
// deliver) turns on one row and its version, and the once-only delivery reads best beside the
// edits it races with.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  platformMetrics,
  type Config,
  type Sequelize,
  exec,
  one,
  type Transaction,
  transact,
} from '@muse/core';
import { JsonableError, notFound } from '../errors.ts';
import type { Actor } from '../context.ts';
import type { DeliveryOutcome, DeliveryPlan } from '../delivery-contract.ts';
import { sendEvent } from '../lib/events/log.ts';
import { insertMessage, prepareMessage, type PreparedMessage } from './message-send.ts';
import type { Destination } from '../lib/messages.ts';
import type { Realm } from '../lib/realms.ts';
import { userById } from '../lib/users.ts';
import { formatScheduledMessage, type ScheduledRow } from '../presenters/scheduled-messages.ts';

/** Starts, moves and cancels deliveries; the messaging API's is Temporal (../delivery-scheduler.ts). */
export interface DeliveryScheduler {
  /** Makes the message's delivery happen at `plan` (starting its workflow when none runs). */
  schedule(scheduledMessageId: number, plan: DeliveryPlan): Promise<void>;
  /** Stops a pending delivery; one already finished or unknown is fine. */
  cancel(scheduledMessageId: number): Promise<void>;
}

/** A destination as the API gives it: `to` is a channel id, or user ids. */
export interface ScheduledDestination {
  type: 'stream' | 'private';
  to: number | number[];
  topic: string;
}

/** `direct`/`private` and `channel`/`stream` are the same kinds; the stored and answered names are the legacy ones. */
export const scheduledType = (type: 'direct' | 'channel' | 'stream' | 'private'): 'stream' | 'private' =>
  type === 'channel' || type === 'stream' ? 'stream' : 'private';

const planOf = (row: ScheduledRow): DeliveryPlan => ({
  version: row.version,
  deliverAtMs: new Date(row.deliver_at).getTime(),
});

function destinationOf(
  row: Pick<ScheduledRow, 'type' | 'stream_id' | 'recipient_ids' | 'topic'>,
): Destination {
  return row.type === 'stream'
    ? { kind: 'stream', to: row.stream_id ?? -1, topic: row.topic }
    : { kind: 'direct', to: row.recipient_ids ?? [] };
}

/** The stored shape of a destination; a channel takes exactly one id, direct messages a non-empty list. */
function storedDestination(destination: ScheduledDestination) {
  const ids = Array.isArray(destination.to) ? destination.to : [destination.to];
  if (destination.type === 'stream') {
    if (ids.length !== 1) throw new JsonableError('Must specify exactly 1 channel ID for channel messages');
    return { type: 'stream' as const, stream_id: ids[0]!, recipient_ids: null, topic: destination.topic };
  }
  if (ids.length === 0) throw new JsonableError('Message must have recipients');
  return { type: 'private' as const, stream_id: null, recipient_ids: ids, topic: '' };
}

/** The replacements of the destination and content columns, as stored. */
function columnsOf(stored: ReturnType<typeof storedDestination>, prepared: PreparedMessage) {
  return {
    type: stored.type,
    streamId: stored.stream_id,
    recipientIds: stored.recipient_ids ? `{${stored.recipient_ids.join(',')}}` : null,
    topic: prepared.topic,
    content: prepared.content,
    rendered: prepared.rendered,
  };
}

function futureDate(timestamp: number): Date {
  const at = new Date(timestamp * 1000);
  if (!Number.isFinite(at.getTime()) || at.getTime() <= Date.now())
    throw new JsonableError('Scheduled delivery time must be in the future.');
  return at;
}

/** The caller's undelivered scheduled message; someone else's counts as not existing, as does one already sent. */
async function findOwn(actor: Actor, id: number, t?: Transaction, lock = false): Promise<ScheduledRow> {
  const row = await one<ScheduledRow>(
    actor.db,
    `SELECT * FROM chat.scheduled_messages
      WHERE id = :id AND sender_id = :userId AND delivered_at IS NULL ${lock ? 'FOR UPDATE' : ''}`,
    { id, userId: actor.user.id },
    t,
  );
  if (!row) throw notFound('Scheduled message does not exist');
  return row;
}

/**
 * POST /scheduled_messages: checked now as a send would be, stored and announced; once that is
 * committed (so the delivery always finds it), handed to the scheduler. If the scheduler cannot
 * take it, it is removed again and the error is the caller's.
 */
export async function createScheduledMessage(
  actor: Actor,
  scheduler: DeliveryScheduler,
  input: ScheduledDestination & { content: string; timestamp: number; readBySender: boolean },
): Promise<number> {
  const { db, user, realm } = actor;
  const stored = storedDestination(input);
  const deliverAt = futureDate(input.timestamp);
  const prepared = await prepareMessage(actor, destinationOf(stored), input.content);
  const created = await transact(db, async (t) => {
    const row = await one<ScheduledRow>(
      db,
      `INSERT INTO chat.scheduled_messages
         (realm_id, sender_id, type, stream_id, recipient_ids, topic, content, rendered_content, read_by_sender, deliver_at)
       VALUES (:realmId, :senderId, :type, :streamId, CAST(:recipientIds AS int[]), :topic, :content, :rendered,
               :readBySender, :deliverAt)
       RETURNING *`,
      {
        realmId: realm.id,
        senderId: user.id,
        ...columnsOf(stored, prepared),
        readBySender: input.readBySender,
        deliverAt,
      },
      t,
    );
    if (!row) throw new Error('scheduled message insert returned nothing');
    await sendEvent(db, t, [user.id], {
      type: 'scheduled_messages',
      op: 'add',
      scheduled_messages: [formatScheduledMessage(row)],
    });
    return row;
  });
  try {
    await scheduler.schedule(created.id, planOf(created));
  } catch (error) {
    // Nothing is kept that nobody will deliver: the client is told to try again.
    await removeScheduledMessage(db, created.id, user.id);
    throw error;
  }
  return created.id;
}

async function removeScheduledMessage(
  db: Sequelize,
  id: number,
  userId: number,
  t?: Transaction,
): Promise<void> {
  const remove = async (tx: Transaction) => {
    await exec(db, 'DELETE FROM chat.scheduled_messages WHERE id = :id', { id }, tx);
    await sendEvent(db, tx, [userId], { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id });
  };
  await (t ? remove(t) : transact(db, remove));
}

export interface ScheduledEdit {
  type?: 'stream' | 'private';
  to?: number | number[];
  topic?: string;
  content?: string;
  timestamp?: number;
}

/** The destination after an edit, by Zulip's rules: a new type needs `to`, and a topic when it becomes a channel. */
function editedDestination(row: ScheduledRow, edit: ScheduledEdit) {
  if (edit.type !== undefined && edit.type !== row.type) {
    if (edit.to === undefined)
      throw new JsonableError('Recipient required when updating type of scheduled message.');
    if (edit.type === 'stream' && edit.topic === undefined)
      throw new JsonableError('Topic required when updating scheduled message type to channel.');
  }
  const type = edit.type ?? row.type;
  const current = row.type === 'stream' ? (row.stream_id ?? -1) : (row.recipient_ids ?? []);
  return storedDestination({
    type,
    to: edit.to ?? current,
    topic: type === 'stream' ? (edit.topic ?? row.topic) : '',
  });
}

/** Edits that find the row changed under them start over; more than this many in a row is a conflict. */
const EDIT_ATTEMPTS = 20;

/**
 * PATCH /scheduled_messages/{id}: checked as a send would be, then written only if nobody
 * edited the message meanwhile (its `version`), else done again on the new state; so edits
 * from any number of processes apply one after the other. Each tells the scheduler its
 * version, and the workflow keeps the newest. A failed message is scheduled again only with
 * a new time (the spec's table).
 */
export async function editScheduledMessage(
  actor: Actor,
  scheduler: DeliveryScheduler,
  id: number,
  edit: ScheduledEdit,
): Promise<void> {
  const { db, user } = actor;
  if (Object.values(edit).every((value) => value === undefined)) throw new JsonableError('Nothing to change');
  const deliverAt = edit.timestamp === undefined ? undefined : futureDate(edit.timestamp);
  for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
    const row = await findOwn(actor, id);
    if (row.failed && deliverAt === undefined)
      throw new JsonableError('Scheduled delivery time must be in the future.');
    const stored = editedDestination(row, edit);
    const prepared = await prepareMessage(actor, destinationOf(stored), edit.content ?? row.content);
    const written = await transact(db, async (t) => {
      const updated = await one<ScheduledRow>(
        db,
        `UPDATE chat.scheduled_messages
            SET type = :type, stream_id = :streamId, recipient_ids = CAST(:recipientIds AS int[]), topic = :topic,
                content = :content, rendered_content = :rendered, deliver_at = :deliverAt,
                failed = false, failure_message = NULL, version = version + 1
          WHERE id = :id AND version = :version AND delivered_at IS NULL RETURNING *`,
        {
          id,
          version: row.version,
          ...columnsOf(stored, prepared),
          deliverAt: deliverAt ?? row.deliver_at,
        },
        t,
      );
      if (!updated) return undefined;
      await sendEvent(db, t, [user.id], {
        type: 'scheduled_messages',
        op: 'update',
        scheduled_message: formatScheduledMessage(updated),
      });
      return updated;
    });
    // Told after the commit, so the workflow never reads an older state than the one it was told.
    if (written) return scheduler.schedule(id, planOf(written));
  }
  throw new JsonableError('The scheduled message is being edited by someone else; try again', {
    status: 409,
  });
}

/** DELETE /scheduled_messages/{id}: gone at commit; the workflow is then cancelled (it would find nothing anyway). */
export async function deleteScheduledMessage(
  actor: Actor,
  scheduler: DeliveryScheduler,
  id: number,
): Promise<void> {
  const { db, user } = actor;
  await transact(db, async (t) => {
    await findOwn(actor, id, t, true);
    await removeScheduledMessage(db, id, user.id, t);
  });
  await scheduler.cancel(id);
}

/** How long a delivery attempt may wait for its message's time (see `readWhenDue`). */
export interface DeliveryWait {
  /** The latest time (epoch ms) worth waiting for; a message due later is answered `pending`. */
  untilMs: number;
  /** Stops the wait (the attempt was cancelled, or the worker is stopping). */
  signal?: AbortSignal;
  /** Told the time the attempt waits for or sends at, and again if an edit moves it. */
  onDue?: (dueAtMs: number) => void;
}

/**
 * Delivers a due scheduled message, at most once: the message is sent, and the scheduled one
 * marked delivered, in one transaction that first re-reads the row locked and checks it is the
 * version that was checked; a retry (or any second attempt) finds it delivered. The checks are
 * POST /messages' own, with the state of now; if they refuse, the scheduled message is kept
 * with `failed: true` and an event. The sent message's push notifications and outgoing webhooks
 * start after the commit, as any message's (insertMessage), so a repeat starts none.
 */
export async function deliverScheduledMessage(
  db: Sequelize,
  config: Config,
  id: number,
  wait?: DeliveryWait,
): Promise<DeliveryOutcome> {
  const row = await readWhenDue(db, id, wait);
  const early = unsendable(row);
  if (early) return early;
  const checked = row!;
  const actor = await senderOf(db, config, checked);
  let prepared;
  try {
    if (typeof actor === 'string') throw new JsonableError(actor);
    prepared = await prepareMessage(actor, destinationOf(checked), checked.content);
  } catch (error) {
    if (error instanceof JsonableError) return markFailed(db, checked, error.message);
    throw error;
  }
  const sender = actor as Actor;
  let sentNow = false;
  const outcome = await transact(db, async (t): Promise<DeliveryOutcome> => {
    sentNow = false; // a deadlocked attempt runs again
    const locked = await one<ScheduledRow>(
      db,
      'SELECT * FROM chat.scheduled_messages WHERE id = :id FOR UPDATE',
      { id },
      t,
    );
    // Edited since the checks: the workflow asks again with the new state.
    if (locked && !locked.delivered_at && locked.version !== checked.version)
      return { status: 'pending', plan: planOf(locked) };
    const changed = unsendable(locked);
    if (changed) return changed;
    const messageId = await insertMessage(sender, prepared, t, { readBySender: checked.read_by_sender });
    await exec(
      db,
      'UPDATE chat.scheduled_messages SET delivered_at = now(), delivered_message_id = :messageId WHERE id = :id',
      { id, messageId },
      t,
    );
    await sendEvent(db, t, [checked.sender_id], {
      type: 'scheduled_messages',
      op: 'remove',
      scheduled_message_id: id,
    });
    sentNow = true;
    return { status: 'delivered', messageId };
  });
  if (sentNow && outcome.status === 'delivered') {
    const lateMs = Date.now() - new Date(checked.deliver_at).getTime();
    platformMetrics.scheduledLateness.observe(Math.max(0, lateMs) / 1000);
  }
  return outcome;
}

/**
 * The row as it is at its time: a message still to send that falls due by `wait.untilMs` is
 * waited for (in this process), then read again, so an edit or a deletion made meanwhile counts;
 * an edit to a later time still within `untilMs` is waited for in turn. The wait never ends
 * before the time, so nothing is sent early.
 */
async function readWhenDue(
  db: Sequelize,
  id: number,
  wait?: DeliveryWait,
): Promise<ScheduledRow | undefined> {
  for (;;) {
    const row = await one<ScheduledRow>(db, 'SELECT * FROM chat.scheduled_messages WHERE id = :id', { id });
    const dueAt = row && !row.delivered_at && !row.failed ? new Date(row.deliver_at).getTime() : 0;
    if (!wait || dueAt > wait.untilMs) return row;
    if (dueAt) wait.onDue?.(dueAt);
    if (dueAt <= Date.now()) return row;
    // A timer can end a millisecond before the wall clock reaches the time.
    while (Date.now() < dueAt) await sleep(dueAt - Date.now(), undefined, { signal: wait.signal });
  }
}

/** Why a row cannot be sent now: deleted, delivered already, failed (awaiting a new time), or not due yet. */
function unsendable(row: ScheduledRow | undefined): DeliveryOutcome | undefined {
  if (!row) return { status: 'gone' };
  if (row.delivered_at) return { status: 'delivered', messageId: Number(row.delivered_message_id) };
  if (row.failed) return { status: 'failed', reason: row.failure_message ?? '' };
  if (new Date(row.deliver_at).getTime() > Date.now()) return { status: 'pending', plan: planOf(row) };
  return undefined;
}

/** The sender as the actor of the delivery, or why it cannot act any more. */
async function senderOf(db: Sequelize, config: Config, row: ScheduledRow): Promise<Actor | string> {
  const realm = await one<Realm>(db, 'SELECT * FROM chat.realms WHERE id = :id', { id: row.realm_id });
  const user = await userById(db, row.realm_id, row.sender_id);
  if (!realm || realm.deactivated) return 'The organization has been deactivated.';
  if (!user?.is_active) return 'The sender has been deactivated.';
  return { db, config, realm, user };
}

/** Keeps the message with `failed: true` (unless it changed meanwhile) and tells the sender's clients. */
async function markFailed(db: Sequelize, row: ScheduledRow, reason: string): Promise<DeliveryOutcome> {
  return transact(db, async (t): Promise<DeliveryOutcome> => {
    const failed = await one<ScheduledRow>(
      db,
      `UPDATE chat.scheduled_messages SET failed = true, failure_message = :reason
        WHERE id = :id AND version = :version AND delivered_at IS NULL RETURNING *`,
      { id: row.id, version: row.version, reason },
      t,
    );
    if (!failed) {
      const now = await one<ScheduledRow>(
        db,
        'SELECT * FROM chat.scheduled_messages WHERE id = :id',
        { id: row.id },
        t,
      );
      return unsendable(now) ?? { status: 'pending', plan: planOf(now!) };
    }
    await sendEvent(db, t, [row.sender_id], {
      type: 'scheduled_messages',
      op: 'update',
      scheduled_message: formatScheduledMessage(failed),
    });
    return { status: 'failed', reason };
  });
}
