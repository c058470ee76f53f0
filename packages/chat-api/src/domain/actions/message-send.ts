import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendChannelEvent, sendEvent } from '../lib/events/log.ts';
import { EMPTY_TOPIC_DISPLAY_NAME, MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../limits.ts';
import { mentionFlagsSql, renderMessage } from '../lib/mentions.ts';
import type { RenderedMentions } from '../lib/markdown.ts';
import { resolveStream, type Destination } from '../lib/messages.ts';
import type { MessageRow } from '../lib/message-row.ts';
import { isSubscribed, type Stream } from '../lib/streams.ts';
import { userHasGroupSetting } from '../lib/group-settings.ts';
import { apiEmail, userByEmailVisibleTo, userById, usersByIds } from '../lib/users.ts';
import { lockChannels } from '../lib/channel-locks.ts';
import { receivedThroughSpan } from '../lib/user-messages.ts';
import { formatMessage } from '../presenters/messages.ts';
import { claimAttachments } from './uploads.ts';
import { recordServiceTriggers } from '../lib/service-triggers.ts';
import { startEffectsAfterCommit } from './message-effects.ts';
import { one, rows, type Transaction, transact } from '@muse/core';

/** A message that passed every check of its sender, ready to be stored. */
export interface PreparedMessage {
  stream: Stream | undefined;
  /**
   * A direct message's recipients, the sender included. A channel message's are its active
   * subscribers and the sender, read by the statement that stores the message (never in a list).
   */
  recipients: number[];
  topic: string;
  content: string;
  rendered: string;
  /** What the content mentions (lib/mentions.ts), for each recipient's flags. */
  mentions: RenderedMentions;
}

/**
 * The topic as stored: `(no topic)` and the organization's empty-topic display name are the empty
 * topic (feature level 370); the channel's (or organization's) policy applies.
 */
function checkTopic(actor: Actor, stream: Stream, raw: string): string {
  const trimmed = raw.trim();
  const topic = trimmed === '(no topic)' || trimmed === EMPTY_TOPIC_DISPLAY_NAME ? '' : trimmed;
  if ([...topic].length > MAX_TOPIC_LENGTH)
    throw new JsonableError(`Topic too long (limit: ${MAX_TOPIC_LENGTH} characters)`);
  const policy = stream.topics_policy === 'inherit' ? actor.realm.topics_policy : stream.topics_policy;
  if (topic === '' && policy === 'disable_empty_topic')
    throw new JsonableError('Sending messages to the general chat is not allowed in this channel.');
  if (topic !== '' && policy === 'empty_topic_only')
    throw new JsonableError('Only the general chat topic is allowed in this channel.');
  return topic;
}

async function checkChannel(actor: Actor, stream: Stream): Promise<void> {
  const { db, user } = actor;
  if (stream.is_archived) throw new JsonableError(`Channel '${stream.name}' is archived.`);
  if (stream.invite_only && !(await isSubscribed(db, user.id, stream.id)))
    throw new JsonableError(`Not authorized to send to channel '${stream.name}'`);
  if (!(await userHasGroupSetting(db, user, stream.can_send_message_group))) {
    throw new JsonableError('You do not have permission to post in this channel.');
  }
}

async function directRecipients(actor: Actor, to: (string | number)[]): Promise<number[]> {
  const { db, realm, user } = actor;
  const ids: number[] = [];
  for (const address of to) {
    const target =
      typeof address === 'number'
        ? await userById(db, realm.id, address)
        : await userByEmailVisibleTo(db, realm, actor.config, user, address);
    if (!target) {
      throw new JsonableError(
        typeof address === 'number' ? `Invalid user ID ${address}` : `Invalid email '${address}'`,
      );
    }
    if (!target.is_active)
      throw new JsonableError(`'${apiEmail(target, realm, actor.config)}' is no longer using Zulip.`);
    ids.push(target.id);
  }
  return [...new Set([...ids, user.id])];
}

/**
 * Every check of sending, with the state of now: content, destination, topic policy, the
 * sender's permission. Used when sending and when scheduling (which checks again at the time).
 */
export async function prepareMessage(
  actor: Actor,
  destination: Destination,
  content: string,
): Promise<PreparedMessage> {
  if (content.trim() === '') throw new JsonableError('Message must not be empty');
  if ([...content].length > MAX_MESSAGE_LENGTH)
    throw new JsonableError(`Message too long (limit: ${MAX_MESSAGE_LENGTH} characters)`);
  if (destination.kind === 'stream') {
    const stream = await resolveStream(actor, destination.to);
    const topic = checkTopic(actor, stream, destination.topic);
    await checkChannel(actor, stream);
    return { stream, recipients: [], topic, content, ...(await renderMessage(actor, content)) };
  }
  const recipients = await directRecipients(actor, destination.to);
  return { stream: undefined, recipients, topic: '', content, ...(await renderMessage(actor, content)) };
}

/**
 * The flags of a direct message's recipients, or of a channel message's sender and those its
 * content may flag (mentioned by name or group, `@**topic**`) who received it, computed by one
 * statement (the sender's read flag, what the content mentions); answers them grouped by their
 * flags, one group per distinct set. A channel message's other receivers have the default flags
 * through their subscription spans (migration 1070): nothing is read or written for them. Only
 * flags that differ from the default are stored: a direct message's recipients each get a row,
 * a channel message's mentioned, those who muted the sender (it arrives read for them) and a
 * sender who has no span or did not read it.
 */
async function storeFlags(
  actor: Actor,
  messageId: number,
  prepared: PreparedMessage,
  senderRead: boolean,
  t: Transaction,
): Promise<{ flags: string[]; users: number[] }[]> {
  const { stream } = prepared;
  const mentions = mentionFlagsSql(prepared.mentions, { streamId: stream?.id, topic: prepared.topic });
  // Whoever muted the sender gets the message read (Zulip's rule), so a row of their own.
  const muters = 'SELECT mu.user_id FROM chat.muted_users mu WHERE mu.muted_user_id = :senderId';
  const recipients = stream
    ? `SELECT c.user_id FROM (SELECT CAST(:senderId AS int) AS user_id UNION ${mentions.candidates} UNION ${muters}) c
       WHERE c.user_id = :senderId OR ${receivedThroughSpan('c.user_id', ':streamId', ':messageId')}`
    : 'SELECT unnest(CAST(:recipientIds AS int[]))';
  // For a channel message: the flags its span gives each recipient (read for the sender, the
  // message's wildcard), and whether the sender has a span covering it at all.
  const explicit = stream
    ? `f.flags <> chat.default_flags(f.user_id, 0, :messageId, :senderId, :wildcard)
       OR (f.user_id = :senderId AND NOT ${receivedThroughSpan(':senderId', ':streamId', ':messageId')})`
    : 'true';
  return rows<{ flags: string[]; users: number[] }>(
    actor.db,
    `WITH RECURSIVE ${mentions.ctes},
     recipients(user_id) AS (${recipients}),
     flagged AS (
       SELECT r.user_id, array_remove(ARRAY[
         CASE WHEN (r.user_id = :senderId AND :senderRead) OR r.user_id IN (${muters}) THEN 'read' END,
         CASE WHEN ${mentions.mentioned('r.user_id')} THEN 'mentioned' END,
         CASE WHEN ${mentions.wildcard('r.user_id')} THEN 'wildcard_mentioned' END], NULL) AS flags
       FROM recipients r),
     stored AS (
       INSERT INTO chat.user_messages (user_id, message_id, flags)
       SELECT f.user_id, :messageId, f.flags FROM flagged f WHERE ${explicit})
     SELECT flags, array_agg(user_id ORDER BY user_id) AS users FROM flagged GROUP BY flags`,
    {
      ...mentions.replacements,
      messageId,
      senderId: actor.user.id,
      senderRead,
      streamId: stream?.id ?? null,
      wildcard: wildcardMentionsAll(prepared),
      recipientIds: `{${prepared.recipients.join(',')}}`,
    },
    t,
  );
}

/** A channel message that mentions everyone carries it on the message, not on 10,000 rows. */
function wildcardMentionsAll(prepared: PreparedMessage): boolean {
  return prepared.stream !== undefined && prepared.mentions.wildcard === 'channel';
}

/**
 * Stores a prepared message in the caller's transaction: the message, the flags that differ
 * from the default, and a `message` event to every recipient's queues; once the transaction
 * commits, its push notifications and outgoing webhooks start (message-effects.ts). A channel
 * message is stored under the channel's shared lock (lib/channel-locks.ts): its id, the spans that
 * say who received it and its event's recipients are read while no subscription of the channel
 * changes, so a member has it in their history exactly when their queue gets it.
 */
export async function insertMessage(
  actor: Actor,
  prepared: PreparedMessage,
  t: Transaction,
  options: { readBySender?: boolean; client?: string } = {},
): Promise<number> {
  const { db, user, realm } = actor;
  const { stream, recipients } = prepared;
  if (stream) await lockChannels(db, t, [stream.id], 'shared');
  const row = await one<MessageRow>(
    db,
    `INSERT INTO chat.messages (realm_id, sender_id, stream_id, recipient_ids, topic, content, rendered_content,
       wildcard_mentioned, client)
     VALUES (:realmId, :senderId, :streamId, :recipientIds, :topic, :content, :rendered, :wildcard, :client)
     RETURNING *`,
    {
      realmId: realm.id,
      senderId: user.id,
      streamId: stream?.id ?? null,
      recipientIds: stream ? null : `{${recipients.join(',')}}`,
      topic: prepared.topic,
      content: prepared.content,
      rendered: prepared.rendered,
      wildcard: wildcardMentionsAll(prepared),
      client: options.client ?? 'API',
    },
    t,
  );
  if (!row) throw new Error('message insert returned nothing');
  const groups = await storeFlags(actor, Number(row.id), prepared, options.readBySender !== false, t);
  await claimAttachments(actor, Number(row.id), prepared.content, stream, t);
  const triggerIds = await recordServiceTriggers(actor, Number(row.id), prepared, t);
  startEffectsAfterCommit(actor, t, { id: Number(row.id), triggerIds });
  // A channel message names only its sender, the actor.
  const users = stream ? [user] : await usersByIds(db, realm.id, [user.id, ...(row.recipient_ids ?? [])], t);
  const message = formatMessage(actor, row, users, stream);
  // One event per distinct set of flags, not one per recipient (set-based fan-out). The raw
  // Markdown rides along for queues registered without apply_markdown (views/events.ts).
  const event = (flags: string[]) => ({ type: 'message', message, flags, raw_content: row.content });
  for (const group of groups) await sendEvent(db, t, group.users, event(group.flags));
  // A channel's other receivers: the default flags of anyone but the sender (chat.default_flags).
  if (stream)
    await sendChannelEvent(
      db,
      t,
      { streamId: stream.id, messageId: Number(row.id), excluded: groups.flatMap((g) => g.users) },
      event(wildcardMentionsAll(prepared) ? ['wildcard_mentioned'] : []),
    );
  return Number(row.id);
}

/**
 * Sends a channel or direct message; recipients' queues get a `message` event in the same
 * transaction, and its push notifications and outgoing webhooks start after the commit.
 */
export async function sendMessage(
  actor: Actor,
  destination: Destination,
  content: string,
  /** The sending client's name (Zulip's `client`); `API` when unknown. */
  client?: string,
): Promise<number> {
  const prepared = await prepareMessage(actor, destination, content);
  return transact(actor.db, (t) => insertMessage(actor, prepared, t, client === undefined ? {} : { client }));
}
