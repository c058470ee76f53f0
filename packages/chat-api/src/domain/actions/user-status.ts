import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { activeUserIds } from '../lib/users.ts';
import { resolveEmoji, type ReactionType } from './reactions.ts';
import { transact, exec } from '@muse/core';

/** Zulip's limit on a status text. */
export const MAX_STATUS_TEXT_LENGTH = 60;

export interface StatusChange {
  status_text?: string | undefined;
  emoji_name?: string | undefined;
  emoji_code?: string | undefined;
  reaction_type?: ReactionType | undefined;
}

/**
 * POST /users/me/status: sets the given parts of the caller's status (an empty text or emoji name
 * clears that part); everyone in the organization gets a `user_status` event with what was sent.
 */
export async function updateStatus(actor: Actor, change: StatusChange): Promise<void> {
  const { db, user, realm } = actor;
  if (Object.values(change).every((v) => v === undefined))
    throw new JsonableError('Client did not pass any new values.');
  if (
    change.emoji_name === undefined &&
    (change.emoji_code !== undefined || change.reaction_type !== undefined)
  )
    throw new JsonableError('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  const text = change.status_text?.trim();
  if (text !== undefined && [...text].length > MAX_STATUS_TEXT_LENGTH)
    throw new JsonableError(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
  const emoji =
    change.emoji_name === undefined
      ? undefined
      : change.emoji_name === ''
        ? { name: '', code: '', type: 'unicode_emoji' }
        : resolveEmoji({
            emoji_name: change.emoji_name,
            emoji_code: change.emoji_code,
            reaction_type: change.reaction_type,
          });
  await transact(db, async (t) => {
    await exec(
      db,
      // A part not sent (NULL) keeps its value.
      `INSERT INTO chat.user_status AS s (user_id, status_text, emoji_name, emoji_code, reaction_type)
       VALUES (:userId, COALESCE(:text, ''), COALESCE(:name, ''), COALESCE(:code, ''), COALESCE(:type, 'unicode_emoji'))
       ON CONFLICT (user_id) DO UPDATE SET status_text = COALESCE(:text, s.status_text),
         emoji_name = COALESCE(:name, s.emoji_name), emoji_code = COALESCE(:code, s.emoji_code),
         reaction_type = COALESCE(:type, s.reaction_type)`,
      {
        userId: user.id,
        text: text ?? null,
        name: emoji?.name ?? null,
        code: emoji?.code ?? null,
        type: emoji?.type ?? null,
      },
      t,
    );
    await sendEvent(db, t, await activeUserIds(db, realm.id, t), {
      type: 'user_status',
      user_id: user.id,
      ...(text === undefined ? {} : { status_text: text }),
      ...(emoji ? { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type } : {}),
    });
  });
}
