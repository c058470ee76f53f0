import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { accessibleStream } from '../lib/channels.ts';
import { userSettings } from '../lib/user-settings.ts';
import { subscriberIds } from '../lib/streams.ts';
import { apiEmail, usersByIds, type User } from '../lib/users.ts';
import { accessibleMessage } from '../lib/message-access.ts';
import { transact } from '@muse/core';

export type TypingTarget =
  { kind: 'direct'; to: number[] } | { kind: 'stream'; streamId: number; topic: string };

/**
 * `POST /typing`: a `typing` event to the others in the conversation (the direct message's
 * recipients, or the channel's subscribers), except those who turned typing notifications off.
 */
export async function sendTyping(actor: Actor, op: 'start' | 'stop', target: TypingTarget): Promise<void> {
  const { db, user, realm, config } = actor;
  const person = (u: User) => ({ user_id: u.id, email: apiEmail(u, realm, config) });
  let recipients: User[];
  let event: Record<string, unknown>;
  if (target.kind === 'direct') {
    if (target.to.length === 0) throw new JsonableError('Empty direct message recipient list');
    const ids = [...new Set([...target.to, user.id])];
    recipients = await usersByIds(db, realm.id, ids);
    if (recipients.length !== ids.length || recipients.some((r) => !r.is_active))
      throw new JsonableError('Invalid user ID');
    event = { message_type: 'direct', recipients: recipients.map(person) };
  } else {
    const stream = await accessibleStream(actor, target.streamId);
    const subscribers = (await subscriberIds(db, [stream.id])).get(stream.id) ?? [];
    recipients = await usersByIds(db, realm.id, subscribers);
    event = { message_type: 'stream', stream_id: stream.id, topic: target.topic };
  }
  const audience = recipients
    .filter((r) => r.id !== user.id && userSettings(r).receives_typing_notifications !== false)
    .map((r) => r.id);
  await transact(db, (t) =>
    sendEvent(db, t, audience, { type: 'typing', op, sender: person(user), ...event }),
  );
}

/**
 * `POST /messages/{id}/typing`: a `typing_edit_message` event (someone is editing that message)
 * to the others in its conversation, as `sendTyping` chooses them; the caller must be able to
 * read the message ("Invalid message(s)" otherwise).
 */
export async function sendEditTyping(actor: Actor, op: 'start' | 'stop', messageId: number): Promise<void> {
  const { db, user, realm } = actor;
  const { row, stream } = await accessibleMessage(actor, messageId);
  const members = stream
    ? ((await subscriberIds(db, [stream.id])).get(stream.id) ?? [])
    : (row.recipient_ids ?? []);
  const audience = (await usersByIds(db, realm.id, members))
    .filter((r) => r.id !== user.id && r.is_active && userSettings(r).receives_typing_notifications !== false)
    .map((r) => r.id);
  const recipient = stream
    ? { type: 'channel', channel_id: stream.id, topic: row.topic }
    : { type: 'direct', user_ids: row.recipient_ids ?? [] };
  await transact(db, (t) =>
    sendEvent(db, t, audience, {
      type: 'typing_edit_message',
      op,
      sender_id: user.id,
      message_id: messageId,
      recipient,
    }),
  );
}
