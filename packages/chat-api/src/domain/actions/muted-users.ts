import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { mutedUsers } from '../lib/muted-users.ts';
import { userById } from '../lib/users.ts';
import { changeFlags } from './message-flags.ts';
import { transact, one, rows } from '@muse/core';

/**
 * POST /users/me/muted_users/{id}: as in Zulip, the muted user's messages the caller has not read
 * become read (new ones arrive read: actions/message-send.ts), and the caller's queues get the
 * whole list in a `muted_users` event.
 */
export async function muteUser(actor: Actor, mutedId: number): Promise<void> {
  const { db, user, realm } = actor;
  if (mutedId === user.id) throw new JsonableError('Cannot mute self');
  if (!(await userById(db, realm.id, mutedId))) throw new JsonableError('No such user');
  await transact(db, async (t) => {
    const added = await rows(
      db,
      `INSERT INTO chat.muted_users (user_id, muted_user_id) VALUES (:userId, :mutedId)
       ON CONFLICT DO NOTHING RETURNING 1`,
      { userId: user.id, mutedId },
      t,
    );
    if (added.length === 0) throw new JsonableError('User already muted');
    await changeFlags(
      actor,
      { op: 'add', flag: 'read' },
      { where: 'm.sender_id = :mutedId', params: { userId: user.id, mutedId } },
      t,
    );
    await sendEvent(db, t, [user.id], { type: 'muted_users', muted_users: await mutedUsers(db, user.id, t) });
  });
}

/** DELETE /users/me/muted_users/{id}: the messages stay as they are (read). */
export async function unmuteUser(actor: Actor, mutedId: number): Promise<void> {
  const { db, user, realm } = actor;
  if (!(await userById(db, realm.id, mutedId))) throw new JsonableError('No such user');
  await transact(db, async (t) => {
    const removed = await one(
      db,
      'DELETE FROM chat.muted_users WHERE user_id = :userId AND muted_user_id = :mutedId RETURNING 1',
      { userId: user.id, mutedId },
      t,
    );
    if (!removed) throw new JsonableError('User is not muted');
    await sendEvent(db, t, [user.id], { type: 'muted_users', muted_users: await mutedUsers(db, user.id, t) });
  });
}
