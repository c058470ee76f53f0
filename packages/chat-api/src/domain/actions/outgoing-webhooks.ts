import type { Config, OutboundFetch, Sequelize } from '@muse/core';
import { OutboundError } from '@muse/core';
import type { Actor } from '../context.ts';
import { JsonableError } from '../errors.ts';
import { serviceOf } from '../lib/bots.ts';
import { streamById } from '../lib/streams.ts';
import type { Destination } from '../lib/messages.ts';
import type { MessageRow } from '../lib/message-row.ts';
import { formatMessage } from '../presenters/messages.ts';
import { insertMessage, prepareMessage } from './message-send.ts';
import type { WebhookOutcome } from '../outgoing-webhook-contract.ts';
import { realmUrl, type Realm } from '../lib/realms.ts';
import { userById, usersByIds, type User } from '../lib/users.ts';
import { transact, exec, one } from '@muse/core';

/** A call that reached no bot server; the workflow retries it, then reports `message`. */
export class BotUnreachableError extends Error {
  override name = 'BotUnreachableError';
}

interface Trigger {
  id: string;
  bot_id: number;
  message_id: string;
  trigger: string;
  finished_at: Date | null;
}

interface Delivery {
  trigger: Trigger;
  bot: Actor;
  owner: User | undefined;
  row: MessageRow;
  payload: Record<string, unknown>;
  url: string;
  /** Where the message is, for the owner's notice (Zulip's near link). */
  messageUrl: string;
}

/** Everything a call needs, read fresh; undefined when the trigger is finished or its bot is gone. */
async function loadDelivery(db: Sequelize, config: Config, triggerId: number): Promise<Delivery | undefined> {
  const trigger = await one<Trigger>(db, 'SELECT * FROM chat.outgoing_webhook_triggers WHERE id = :id', {
    id: triggerId,
  });
  if (!trigger || trigger.finished_at) return undefined;
  const botUser = await one<User>(db, 'SELECT * FROM chat.users WHERE id = :id', { id: trigger.bot_id });
  const service = await serviceOf(db, trigger.bot_id);
  const row = await one<MessageRow>(db, 'SELECT * FROM chat.messages WHERE id = :id', {
    id: trigger.message_id,
  });
  if (!botUser || !service || !row) return undefined;
  const realm = (await one<Realm>(db, 'SELECT * FROM chat.realms WHERE id = :id', { id: botUser.realm_id }))!;
  const bot: Actor = { db, config, realm, user: botUser };
  const stream = row.stream_id === null ? undefined : await streamById(db, realm.id, row.stream_id);
  const users = await usersByIds(db, realm.id, [row.sender_id, ...(row.recipient_ids ?? [])]);
  // Zulip sends the Markdown with its rendering beside it (`keep_rendered_content`).
  const message = {
    ...formatMessage(bot, row, users, stream, { applyMarkdown: false }),
    rendered_content: row.rendered_content,
  };
  return {
    trigger,
    bot,
    owner: botUser.bot_owner_id === null ? undefined : await userById(db, realm.id, botUser.bot_owner_id),
    row,
    url: service.base_url,
    messageUrl: `${realmUrl(realm, config)}/#narrow/near/${row.id}`,
    payload: {
      bot_email: botUser.delivery_email,
      bot_full_name: botUser.full_name,
      data: row.content,
      message,
      token: service.token,
      trigger: trigger.trigger,
    },
  };
}

/** The bot server's answer as Zulip reads it: the reply's content, or an error for the notices. */
function readAnswer(text: string): { content?: string; error?: string } {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { error: 'Invalid JSON in response' };
  }
  // zulip_botserver before 2021-05 answered json.dumps("") for "no response required".
  if (answer === '') return {};
  if (!answer || typeof answer !== 'object' || Array.isArray(answer))
    return { error: 'Invalid response format' };
  const fields = answer as Record<string, unknown>;
  if (fields.response_not_required === true) return {};
  const content = fields.response_string ?? fields.content;
  return content === undefined || content === null ? {} : { content: String(content) };
}

const block = (text: string) => `\n\`\`\`\n${text.replace(/```/g, '`\u200b``')}\n\`\`\``;

/**
 * One call to the bot's server (through the outbound guard) and its outcome, exactly once: the
 * reply or the failure notices and the trigger's finished mark are one transaction that finds
 * the trigger unfinished, so an attempt repeated after a crash never posts twice. A server that
 * cannot be reached throws BotUnreachableError (the workflow retries, then reports it).
 */
export async function deliverOutgoingWebhook(
  deps: { db: Sequelize; config: Config; fetch: OutboundFetch },
  triggerId: number,
): Promise<WebhookOutcome> {
  const delivery = await loadDelivery(deps.db, deps.config, triggerId);
  if (!delivery) return 'finished-before';
  let response: Response;
  let text: string;
  try {
    response = await deps.fetch(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'ZulipOutgoingWebhook/Muse' },
      body: JSON.stringify(delivery.payload),
      signal: AbortSignal.timeout(deps.config.MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS * 1000),
    });
    text = await response.text();
  } catch (error) {
    if (error instanceof OutboundError && (error.reason === 'forbidden_address' || error.reason === 'scheme'))
      return finish(deps.db, delivery, {
        failure: 'The URL configured for the webhook is for a private or disallowed network.',
        notice: 'The URL configured for the webhook is for a private or disallowed network.',
      });
    if (error instanceof OutboundError && error.reason === 'timeout')
      throw new BotUnreachableError(
        `Request timed out after ${deps.config.MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS} seconds.`,
      );
    throw new BotUnreachableError('A connection error occurred. Is my bot server down?');
  }
  if (response.status < 200 || response.status >= 300)
    return finish(deps.db, delivery, {
      failure: `Third party responded with ${response.status}`,
      notice: `The webhook got a response with status code *${response.status}*.${payloadOf(text)}`,
    });
  const answer = readAnswer(text);
  if (answer.error)
    return finish(deps.db, delivery, {
      failure: answer.error,
      notice:
        'The outgoing webhook server attempted to send a message in Zulip, but that request resulted ' +
        `in the following error:\n> ${answer.error}${payloadOf(text)}`,
    });
  return finish(deps.db, delivery, answer.content?.trim() ? { reply: answer.content } : {});
}

const payloadOf = (text: string) =>
  text ? `\nThe response contains the following payload:${block(text.slice(0, 2000))}` : '';

/** After the last retry: "Failure! Bot is unavailable" where it was asked, and the reason to the owner. */
export async function reportUnreachableBot(
  deps: { db: Sequelize; config: Config },
  triggerId: number,
  reason: string,
): Promise<WebhookOutcome> {
  const delivery = await loadDelivery(deps.db, deps.config, triggerId);
  if (!delivery) return 'finished-before';
  return finish(deps.db, delivery, { failure: 'Bot is unavailable', notice: reason });
}

/** Where the triggering message was: its channel and topic, or its direct-message group. */
function replyDestination(row: MessageRow): Destination {
  return row.stream_id === null
    ? { kind: 'direct', to: row.recipient_ids ?? [row.sender_id] }
    : { kind: 'stream', to: row.stream_id, topic: row.topic };
}

/**
 * The outcome's messages, sent by the bot, and the trigger's finished mark, in one transaction
 * that locks the trigger first: the second of two attempts finds it finished and sends nothing.
 */
async function finish(
  db: Sequelize,
  delivery: Delivery,
  outcome: { reply?: string; failure?: string; notice?: string },
): Promise<WebhookOutcome> {
  const { bot, owner, row } = delivery;
  const messages: { destination: Destination; content: string }[] = [];
  if (outcome.reply) messages.push({ destination: replyDestination(row), content: outcome.reply });
  if (outcome.failure)
    messages.push({ destination: replyDestination(row), content: `Failure! ${outcome.failure}` });
  if (outcome.notice && owner?.is_active)
    messages.push({
      destination: { kind: 'direct', to: [owner.id] },
      content:
        `[A message](${delivery.messageUrl}) to your bot @_**${bot.user.full_name}** triggered an ` +
        `outgoing webhook.\n${outcome.notice}`,
    });
  const result: WebhookOutcome = outcome.reply ? 'replied' : outcome.failure ? 'failed' : 'no-reply';
  return transact(db, async (t) => {
    const open = await one(
      db,
      'SELECT 1 FROM chat.outgoing_webhook_triggers WHERE id = :id AND finished_at IS NULL FOR UPDATE',
      { id: delivery.trigger.id },
      t,
    );
    if (!open) return 'finished-before';
    let refused: string | undefined;
    for (const { destination, content } of messages) {
      try {
        // The bot's permissions now: a channel it may no longer post in refuses the reply.
        await insertMessage(bot, await prepareMessage(bot, destination, content), t);
      } catch (error) {
        if (!(error instanceof JsonableError)) throw error;
        refused = error.message;
      }
    }
    await exec(
      db,
      'UPDATE chat.outgoing_webhook_triggers SET finished_at = now(), outcome = :outcome WHERE id = :id',
      { id: delivery.trigger.id, outcome: refused ? `${result}; not posted: ${refused}` : result },
      t,
    );
    return result;
  });
}
