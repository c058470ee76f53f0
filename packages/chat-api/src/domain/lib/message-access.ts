import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { REACTIONS_SQL, type MessageRow } from './message-row.ts';
import { canReadHistory, streamById, type Stream } from './streams.ts';
import { one, type Transaction } from '@muse/core';

/** A message the caller may read, with their flags (null: never received, read through the channel's history). */
export interface AccessibleMessage<Row extends MessageRow = MessageRow> {
  row: Row;
  flags: string[] | null;
  stream: Stream | undefined;
}

export const invalidMessage = () => new JsonableError('Invalid message(s)', { code: 'BAD_REQUEST' });

/**
 * The message, if the caller received it or may read the channel's history (Zulip's access rule);
 * otherwise "Invalid message(s)", whether it exists or not. `forUpdate` locks the row.
 */
export async function accessibleMessage(
  actor: Actor,
  messageId: number,
  t?: Transaction,
  forUpdate = false,
): Promise<AccessibleMessage> {
  const { db, realm, user } = actor;
  const found = await one<MessageRow & { user_flags: string[] | null }>(
    db,
    `SELECT m.*, ${REACTIONS_SQL}, chat.message_flags(:userId, m.id) AS user_flags FROM chat.messages m
     WHERE m.id = :messageId AND m.realm_id = :realmId ${forUpdate ? 'FOR UPDATE OF m' : ''}`,
    { messageId, userId: user.id, realmId: realm.id },
    t,
  );
  if (!found) throw invalidMessage();
  const { user_flags: flags, ...row } = found;
  const [readable] = await readableMessages(actor, [{ row, flags }]);
  if (!readable) throw invalidMessage();
  return readable;
}

/**
 * Zulip's access rule, the one check of every read of given messages (`accessibleMessage`, and
 * `GET /messages`' `message_ids`): of the messages found with the caller's flags (null: never
 * received), those the caller received, or whose channel's history they may read.
 */
export async function readableMessages<Row extends MessageRow>(
  actor: Actor,
  found: { row: Row; flags: string[] | null }[],
): Promise<AccessibleMessage<Row>[]> {
  const streams = new Map<number, { stream: Stream | undefined; history: boolean }>();
  const readable: AccessibleMessage<Row>[] = [];
  for (const { row, flags } of found) {
    const channel = row.stream_id;
    if (channel !== null && !streams.has(channel)) {
      const stream = await streamById(actor.db, actor.realm.id, channel);
      streams.set(channel, {
        stream,
        history: stream !== undefined && (await canReadHistory(actor.db, actor.user, stream)),
      });
    }
    const known = channel === null ? undefined : streams.get(channel);
    if (flags !== null || known?.history) readable.push({ row, flags, stream: known?.stream });
  }
  return readable;
}
