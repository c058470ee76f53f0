import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { REACTIONS_SQL, type MessageRow } from './message-row.ts';
import { canReadHistory, streamById, type Stream } from './streams.ts';
import { one, type Transaction } from '@muse/core';

/** A message the caller may read, with their flags (null: never received, read through the channel's history). */
export interface AccessibleMessage {
  row: MessageRow;
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
  const stream = row.stream_id === null ? undefined : await streamById(db, realm.id, row.stream_id);
  if (flags === null && !(stream && (await canReadHistory(db, user, stream)))) throw invalidMessage();
  return { row, flags, stream };
}
