/*
 * Deleting a message (`DELETE /messages/{id}`): who may (the sender within the limit, or whoever
 * may delete any message of the channel) and the `delete_message` event to everyone who had it.
 */
import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { userHasGroupSetting } from '../lib/group-settings.ts';
import { accessibleMessage } from '../lib/message-access.ts';
import { REALM_POLICY } from '../lib/realm-policy.ts';
import { isAdmin } from '../lib/users.ts';
import { exec, rows, transact } from '@muse/core';

const secondsSince = (d: Date) => (Date.now() - new Date(d).getTime()) / 1000;

/**
 * `DELETE /messages/{id}`: the sender within the organization's limit (with the channel's
 * `can_delete_own_message_group`), or an administrator; everyone who had it gets `delete_message`.
 */
export async function deleteMessage(actor: Actor, messageId: number): Promise<void> {
  const { db, user } = actor;
  await transact(db, async (t) => {
    const { row, stream } = await accessibleMessage(actor, messageId, t, true);
    const mayDeleteAny =
      isAdmin(user) ||
      (stream !== undefined && (await userHasGroupSetting(db, user, stream.can_delete_any_message_group)));
    if (!mayDeleteAny) {
      const own =
        row.sender_id === user.id &&
        (stream === undefined || (await userHasGroupSetting(db, user, stream.can_delete_own_message_group)));
      if (!own) throw new JsonableError("You don't have permission to delete this message");
      const limit = REALM_POLICY.message_content_delete_limit_seconds;
      if (limit !== null && secondsSince(row.date_sent) > limit)
        throw new JsonableError('The time limit for deleting this message has passed');
    }
    const holders = await rows<{ user_id: number }>(
      db,
      'SELECT user_id FROM chat.message_holders(:messageId)',
      { messageId },
      t,
    );
    // Its flags rows go with it (the trigger of migration 1060).
    await exec(db, 'DELETE FROM chat.messages WHERE id = :messageId', { messageId }, t);
    await sendEvent(db, t, [user.id, ...holders.map((h) => h.user_id)], {
      type: 'delete_message',
      message_id: messageId,
      message_ids: [messageId],
      message_type: stream ? 'stream' : 'private',
      ...(stream ? { stream_id: stream.id, topic: row.topic } : {}),
    });
  });
}
