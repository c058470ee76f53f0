import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events.ts';
import { EMPTY_TOPIC_DISPLAY_NAME, MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../limits.ts';
import { exec, one, type Transaction } from '../sql.ts';
import { mentionFlags, renderMessage } from '../lib/mentions.ts';
import type { RenderedMentions } from '../lib/markdown.ts';
import { resolveStream, type Destination, type MessageRow } from '../lib/messages.ts';
import { subscriberIds, type Stream } from '../lib/streams.ts';
import { userHasGroupSetting } from '../lib/group-settings.ts';
import { apiEmail, userByAnyEmail, userById, usersByIds } from '../lib/users.ts';
import { transact } from '../lib/transact.ts';
import { formatMessage } from '../presenters/messages.ts';
import { claimAttachments } from './uploads.ts';
import { recordServiceTriggers } from '../lib/service-triggers.ts';

/** A message that passed every check of its sender, ready to be stored. */
export interface PreparedMessage {
  stream: Stream | undefined;
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

async function channelRecipients(actor: Actor, stream: Stream): Promise<number[]> {
  const { db, user } = actor;
  if (stream.is_archived) throw new JsonableError(`Channel '${stream.name}' is archived.`);
  const subs = (await subscriberIds(db, [stream.id])).get(stream.id) ?? [];
  if (stream.invite_only && !subs.includes(user.id))
    throw new JsonableError(`Not authorized to send to channel '${stream.name}'`);
  if (!(await userHasGroupSetting(db, user, stream.can_send_message_group))) {
    throw new JsonableError('You do not have permission to post in this channel.');
  }
  return [...new Set([...subs, user.id])];
}

async function directRecipients(actor: Actor, to: (string | number)[]): Promise<number[]> {
  const { db, realm, user } = actor;
  const ids: number[] = [];
  for (const address of to) {
    const target =
      typeof address === 'number'
        ? await userById(db, realm.id, address)
        : await userByAnyEmail(db, realm, actor.config, address);
    if (!target) throw new JsonableError(`Invalid user ID ${address}`);
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
    const recipients = await channelRecipients(actor, stream);
    return { stream, recipients, topic, content, ...(await renderMessage(actor, content)) };
  }
  const recipients = await directRecipients(actor, destination.to);
  return { stream: undefined, recipients, topic: '', content, ...(await renderMessage(actor, content)) };
}

/**
 * Stores a prepared message in the caller's transaction: the message, each recipient's
 * unread state, and a `message` event to every recipient's queues.
 */
export async function insertMessage(
  actor: Actor,
  prepared: PreparedMessage,
  t: Transaction,
  options: { readBySender?: boolean } = {},
): Promise<number> {
  const { db, user, realm } = actor;
  const { stream, recipients } = prepared;
  const senderFlags = options.readBySender === false ? [] : ['read'];
  const row = await one<MessageRow>(
    db,
    `INSERT INTO chat.messages (realm_id, sender_id, stream_id, recipient_ids, topic, content, rendered_content)
     VALUES (:realmId, :senderId, :streamId, :recipientIds, :topic, :content, :rendered) RETURNING *`,
    {
      realmId: realm.id,
      senderId: user.id,
      streamId: stream?.id ?? null,
      recipientIds: stream ? null : `{${recipients.join(',')}}`,
      topic: prepared.topic,
      content: prepared.content,
      rendered: prepared.rendered,
    },
    t,
  );
  if (!row) throw new Error('message insert returned nothing');
  // Each recipient's flags: the sender's read flag, and what the content mentions.
  const mentioned = await mentionFlags(
    actor,
    prepared.mentions,
    { recipients, streamId: stream?.id, topic: prepared.topic },
    t,
  );
  const flagsOf = (id: number) => [...(id === user.id ? senderFlags : []), ...(mentioned.get(id) ?? [])];
  await exec(
    db,
    `INSERT INTO chat.user_messages (user_id, message_id, flags)
     SELECT u, :id, string_to_array(f, ',') FROM unnest(CAST(:users AS int[]), CAST(:flags AS text[])) AS x(u, f)`,
    {
      id: row.id,
      users: `{${recipients.join(',')}}`,
      flags: `{${recipients.map((r) => `"${flagsOf(r).join(',')}"`).join(',')}}`,
    },
    t,
  );
  await claimAttachments(actor, Number(row.id), prepared.content, stream, t);
  await recordServiceTriggers(actor, Number(row.id), prepared, t);
  const users = await usersByIds(db, realm.id, [user.id, ...(row.recipient_ids ?? [])], t);
  const message = formatMessage(actor, row, users, stream);
  // One event per distinct set of flags, not one per recipient (set-based fan-out). The raw
  // Markdown rides along for queues registered without apply_markdown (views/events.ts).
  const byFlags = new Map<string, number[]>();
  for (const id of recipients) {
    const key = flagsOf(id).join(',');
    byFlags.set(key, [...(byFlags.get(key) ?? []), id]);
  }
  for (const [key, ids] of byFlags)
    await sendEvent(db, t, ids, {
      type: 'message',
      message,
      flags: key === '' ? [] : key.split(','),
      raw_content: row.content,
    });
  return Number(row.id);
}

/** Sends a channel or direct message; recipients' queues get a `message` event in the same transaction. */
export async function sendMessage(actor: Actor, destination: Destination, content: string): Promise<number> {
  const prepared = await prepareMessage(actor, destination, content);
  return transact(actor.db, (t) => insertMessage(actor, prepared, t));
}
