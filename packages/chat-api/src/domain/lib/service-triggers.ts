import type { Sequelize } from '@muse/core';
import type { Actor } from '../context.ts';
import type { RenderedMentions } from './markdown.ts';
import { BOT_TYPE } from './bots.ts';
import { rows, type Transaction } from '@muse/core';

/**
 * In the transaction of a new message: the active outgoing-webhook bots it mentions (in a
 * channel) or is sent to (direct) get a trigger row each, Zulip's `get_service_bot_events`. A
 * bot's own messages trigger nothing, so two bots cannot loop. Returns the triggers' ids (the
 * send action starts their workflows after the commit).
 */
export async function recordServiceTriggers(
  actor: Actor,
  messageId: number,
  message: { stream: unknown; recipients: number[]; mentions: RenderedMentions },
  t: Transaction,
): Promise<number[]> {
  if (actor.user.is_bot) return [];
  const candidates = message.stream
    ? [...message.mentions.userIds]
    : message.recipients.filter((id) => id !== actor.user.id);
  if (candidates.length === 0) return [];
  const created = await rows<{ id: string }>(
    actor.db,
    `INSERT INTO chat.outgoing_webhook_triggers (bot_id, message_id, trigger)
     SELECT u.id, :messageId, :trigger FROM chat.users u JOIN chat.bot_services s ON s.bot_id = u.id
     WHERE u.realm_id = :realmId AND u.id IN (:candidates) AND u.is_active AND u.bot_type = :type
     RETURNING id`,
    {
      messageId,
      trigger: message.stream ? 'mention' : 'direct_message',
      realmId: actor.realm.id,
      candidates,
      type: BOT_TYPE.OUTGOING_WEBHOOK,
    },
    t,
  );
  return created.map((row) => Number(row.id));
}

/**
 * Unfinished triggers older than `ageMs` (at most a day old, 100 at a time): their workflow may
 * never have started — the sending process died after the commit, or Temporal was away.
 */
export async function staleTriggerIds(db: Sequelize, ageMs: number): Promise<number[]> {
  const found = await rows<{ id: string }>(
    db,
    `SELECT id FROM chat.outgoing_webhook_triggers
     WHERE finished_at IS NULL AND created_at < now() - make_interval(secs => :age)
       AND created_at > now() - interval '1 day'
     ORDER BY id LIMIT 100`,
    { age: ageMs / 1000 },
  );
  return found.map((row) => Number(row.id));
}
