import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { emojiCodeForName, emojiNameMatchesCode, isEmojiCode } from '../lib/emoji.ts';
import { accessibleMessage } from '../lib/message-access.ts';
import { apiEmail } from '../lib/users.ts';
import { rows, type Transaction, transact } from '@muse/core';

export const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'] as const;
export type ReactionType = (typeof REACTION_TYPES)[number];

export interface ReactionInput {
  emoji_name: string;
  emoji_code: string | undefined;
  reaction_type: ReactionType | undefined;
}

/**
 * The reaction as stored: a Unicode emoji's code (the client's when it sent one, checked against
 * the dataset, with a name of that emoji; else the name's), or Zulip's one extra emoji. Custom
 * (realm) emoji need uploads: none exist, so every realm emoji id is refused.
 */
function resolve(input: ReactionInput): { name: string; code: string; type: ReactionType } {
  const type = input.reaction_type ?? 'unicode_emoji';
  if (type === 'zulip_extra_emoji') {
    if ((input.emoji_code ?? 'zulip') !== 'zulip') throw new JsonableError('Invalid emoji code.');
    if (input.emoji_name !== 'zulip') throw new JsonableError('Invalid emoji name.');
    return { name: 'zulip', code: 'zulip', type };
  }
  if (type === 'realm_emoji') throw new JsonableError('Invalid custom emoji.');
  if (input.emoji_code !== undefined) {
    if (!isEmojiCode(input.emoji_code)) throw new JsonableError('Invalid emoji code.');
    if (!emojiNameMatchesCode(input.emoji_name, input.emoji_code))
      throw new JsonableError('Invalid emoji name.');
    return { name: input.emoji_name, code: input.emoji_code.toLowerCase(), type };
  }
  const code = emojiCodeForName(input.emoji_name);
  if (!code) throw new JsonableError(`Emoji '${input.emoji_name}' does not exist`);
  return { name: input.emoji_name, code, type };
}

/** Adds or removes the caller's reaction; everyone who received the message gets a `reaction` event. */
export async function changeReaction(
  actor: Actor,
  messageId: number,
  op: 'add' | 'remove',
  input: ReactionInput,
): Promise<void> {
  const { db, user, realm, config } = actor;
  await transact(db, async (t) => {
    await accessibleMessage(actor, messageId, t, true);
    // Removing by name alone finds the caller's reaction of that name, whatever code it was stored with.
    const emoji =
      op === 'remove' && input.emoji_code === undefined
        ? await ownReactionByName(actor, messageId, input, t)
        : resolve(input);
    const changed =
      op === 'add'
        ? await rows(
            db,
            `INSERT INTO chat.reactions (message_id, user_id, emoji_name, emoji_code, reaction_type)
             VALUES (:messageId, :userId, :name, :code, :type) ON CONFLICT DO NOTHING RETURNING 1`,
            { messageId, userId: user.id, ...emoji },
            t,
          )
        : await rows(
            db,
            `DELETE FROM chat.reactions WHERE message_id = :messageId AND user_id = :userId
               AND emoji_code = :code AND reaction_type = :type RETURNING 1`,
            { messageId, userId: user.id, ...emoji },
            t,
          );
    if (changed.length === 0)
      throw new JsonableError(op === 'add' ? 'Reaction already exists.' : "Reaction doesn't exist.");
    const audience = await rows<{ user_id: number }>(
      db,
      'SELECT user_id FROM chat.message_holders(:messageId)',
      { messageId },
      t,
    );
    await sendEvent(db, t, [user.id, ...audience.map((a) => a.user_id)], {
      type: 'reaction',
      op,
      message_id: messageId,
      user_id: user.id,
      user: { user_id: user.id, email: apiEmail(user, realm, config), full_name: user.full_name },
      emoji_name: emoji.name,
      emoji_code: emoji.code,
      reaction_type: emoji.type,
    });
  });
}

async function ownReactionByName(
  actor: Actor,
  messageId: number,
  input: ReactionInput,
  t: Transaction,
): Promise<{ name: string; code: string; type: ReactionType }> {
  const found = await rows<{ emoji_code: string; reaction_type: ReactionType }>(
    actor.db,
    `SELECT emoji_code, reaction_type FROM chat.reactions
     WHERE message_id = :messageId AND user_id = :userId AND emoji_name = :name
       AND reaction_type = COALESCE(:type, reaction_type)`,
    { messageId, userId: actor.user.id, name: input.emoji_name, type: input.reaction_type ?? null },
    t,
  );
  const first = found[0];
  if (!first) throw new JsonableError("Reaction doesn't exist.");
  return { name: input.emoji_name, code: first.emoji_code, type: first.reaction_type };
}

/** The emoji as Zulip stores a reaction's (also a user status's emoji). */
export { resolve as resolveEmoji };
