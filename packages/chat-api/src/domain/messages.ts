import type { Sequelize } from '@muse/core';
import { JsonableError } from './errors.ts';
import type { Actor } from './context.ts';
import { sendEvent } from './events.ts';
import { EMPTY_TOPIC_DISPLAY_NAME, MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from './limits.ts';
import { exec, one, rows, type Transaction } from './sql.ts';
import { mentionFlags, renderMessage } from './lib/mentions.ts';
import type { RenderedMentions } from './markdown.ts';
import { canReadHistory, streamById, streamByName, subscriberIds, type Stream } from './lib/streams.ts';
import { userHasGroupSetting } from './groups.ts';
import {
  apiEmail,
  canSeeRealEmail,
  avatarUrl,
  userByAnyEmail,
  userById,
  usersByIds,
  type User,
} from './users.ts';
import { transact } from './lib/transact.ts';

export interface MessageRow {
  id: string;
  sender_id: number;
  stream_id: number | null;
  recipient_ids: number[] | null;
  topic: string;
  content: string;
  rendered_content: string;
  client: string;
  date_sent: Date;
  last_edit_time?: Date | null;
  last_moved_time?: Date | null;
  /** Zulip's reaction records, when the query aggregated them (see REACTIONS_SQL). */
  reactions?: Record<string, unknown>[];
}

/** A select-list item aggregating a message `m`'s reactions into Zulip's records. */
export const REACTIONS_SQL = `COALESCE((SELECT jsonb_agg(jsonb_build_object('emoji_name', r.emoji_name,
  'emoji_code', r.emoji_code, 'reaction_type', r.reaction_type, 'user_id', r.user_id) ORDER BY r.created_at)
  FROM chat.reactions r WHERE r.message_id = m.id), '[]'::jsonb) AS reactions`;

export type Destination =
  { kind: 'stream'; to: string | number; topic: string } | { kind: 'direct'; to: (string | number)[] };

async function resolveStream(actor: Actor, to: string | number): Promise<Stream> {
  const stream =
    typeof to === 'number'
      ? await streamById(actor.db, actor.realm.id, to)
      : await streamByName(actor.db, actor.realm.id, to);
  if (!stream) {
    if (typeof to === 'number') {
      throw new JsonableError(`Channel with ID '${to}' does not exist`, {
        code: 'STREAM_DOES_NOT_EXIST',
        extra: { stream_id: to },
      });
    }
    throw new JsonableError(`Channel '${to}' does not exist`, {
      code: 'STREAM_DOES_NOT_EXIST',
      extra: { stream: to },
    });
  }
  return stream;
}

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

/** The `anchor` Zulip reports for `newest`: larger than any message id. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

/** Sends a channel or direct message; recipients' queues get a `message` event in the same transaction. */
export async function sendMessage(actor: Actor, destination: Destination, content: string): Promise<number> {
  const prepared = await prepareMessage(actor, destination, content);
  return transact(actor.db, (t) => insertMessage(actor, prepared, t));
}

/**
 * A message as Zulip presents it. With `applyMarkdown: false` the content is the sender's
 * Markdown (`content_type: text/x-markdown`), as Zulip gives clients that ask for raw content.
 */
export function formatMessage(
  actor: Actor,
  row: MessageRow,
  users: User[],
  stream: Stream | undefined,
  options: { applyMarkdown?: boolean } = {},
): Record<string, unknown> {
  const html = options.applyMarkdown ?? true;
  const byId = new Map(users.map((u) => [u.id, u]));
  const sender = byId.get(row.sender_id);
  const formatted: Record<string, unknown> = {
    id: Number(row.id),
    sender_id: row.sender_id,
    sender_full_name: sender?.full_name ?? '',
    sender_email: sender ? apiEmail(sender, actor.realm, actor.config) : '',
    sender_realm_str: actor.realm.string_id,
    avatar_url: sender
      ? avatarUrl(
          sender,
          canSeeRealEmail(actor.user, sender)
            ? sender.delivery_email
            : apiEmail(sender, actor.realm, actor.config),
        )
      : null,
    client: row.client,
    content: html ? row.rendered_content : row.content,
    content_type: html ? 'text/html' : 'text/x-markdown',
    is_me_message: false,
    reactions: row.reactions ?? [],
    submessages: [],
    subject: row.topic,
    topic_links: [],
    timestamp: Math.floor(new Date(row.date_sent).getTime() / 1000),
    recipient_id: stream ? stream.id : row.sender_id,
  };
  if (row.last_edit_time) formatted.last_edit_timestamp = seconds(row.last_edit_time);
  if (row.last_moved_time) formatted.last_moved_timestamp = seconds(row.last_moved_time);
  if (stream) {
    Object.assign(formatted, { type: 'stream', stream_id: stream.id, display_recipient: stream.name });
  } else {
    Object.assign(formatted, {
      type: 'private',
      display_recipient: (row.recipient_ids ?? []).map((id) => {
        const u = byId.get(id);
        return {
          id,
          email: u ? apiEmail(u, actor.realm, actor.config) : '',
          full_name: u?.full_name ?? '',
          is_mirror_dummy: false,
        };
      }),
    });
  }
  return formatted;
}

const seconds = (d: Date) => Math.floor(new Date(d).getTime() / 1000);

/** The newest message the user has received (-1 before the first). */
export async function maxMessageId(db: Sequelize, userId: number): Promise<number> {
  const max = await one<{ id: string | null }>(
    db,
    'SELECT max(message_id) AS id FROM chat.user_messages WHERE user_id = :userId',
    { userId },
  );
  return max?.id ? Number(max.id) : -1;
}

export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated?: boolean;
}

/** GET /messages: the caller's messages around an anchor, filtered by the basic narrow operators. */
export async function getMessages(
  actor: Actor,
  query: {
    anchor: string;
    numBefore: number;
    numAfter: number;
    narrow: NarrowTerm[];
    applyMarkdown?: boolean;
  },
): Promise<Record<string, unknown>> {
  const { db, user, realm } = actor;
  const where: string[] = [];
  const repl: Record<string, unknown> = { userId: user.id };
  let historyOf: Stream | undefined;
  for (const [i, term] of query.narrow.entries()) {
    const key = `o${i}`;
    // Every operator takes a channel/user id or a string; anything else would reach the SQL as a list.
    if (typeof term.operand !== 'string' && typeof term.operand !== 'number') {
      throw new JsonableError(`Invalid narrow operand for '${term.operator}'`);
    }
    const not = term.negated ? 'NOT ' : '';
    switch (term.operator) {
      case 'channel':
      case 'stream': {
        const stream = await resolveStream(actor, term.operand);
        where.push(`${not}(m.stream_id = :${key})`);
        repl[key] = stream.id;
        if (!term.negated && (await canReadHistory(db, user, stream))) historyOf = stream;
        break;
      }
      case 'topic':
        where.push(`${not}(lower(m.topic) = lower(:${key}))`);
        repl[key] = String(term.operand);
        break;
      case 'sender': {
        const sender =
          typeof term.operand === 'number'
            ? await userById(db, realm.id, term.operand)
            : await userByAnyEmail(db, realm, actor.config, String(term.operand));
        where.push(`${not}(m.sender_id = :${key})`);
        repl[key] = sender?.id ?? -1;
        break;
      }
      case 'is':
        if (term.operand === 'dm' || term.operand === 'private') where.push(`${not}(m.stream_id IS NULL)`);
        else throw new JsonableError(`Invalid narrow operator: unknown 'is' operand`);
        break;
      default:
        throw new JsonableError(`Invalid narrow operator: unknown operator`);
    }
  }
  // A channel whose history the user may read is read from the messages themselves; messages the
  // user never received carry Zulip's flags for such history.
  const base = historyOf
    ? `FROM chat.messages m LEFT JOIN chat.user_messages um ON um.message_id = m.id AND um.user_id = :userId
       WHERE ${['m.stream_id = :historyOf', ...where].join(' AND ')}`
    : `FROM chat.user_messages um JOIN chat.messages m ON m.id = um.message_id
       WHERE ${['um.user_id = :userId', ...where].join(' AND ')}`;
  if (historyOf) repl.historyOf = historyOf.id;
  // `first_unread`: the oldest unread message of the narrow, else as `newest` (Zulip's rule).
  let anchor = query.anchor;
  if (anchor === 'first_unread') {
    const unread = await one<{ id: string }>(
      db,
      `SELECT m.id ${base} AND um.user_id IS NOT NULL AND NOT ('read' = ANY (um.flags)) ORDER BY m.id LIMIT 1`,
      repl,
    );
    anchor = unread ? unread.id : 'newest';
  }
  const newest = anchor === 'newest';
  const anchorId = newest ? Number.MAX_SAFE_INTEGER : anchor === 'oldest' ? 0 : Number(anchor);
  if (!/^(newest|oldest|\d+)$/.test(anchor) || !Number.isFinite(anchorId))
    throw new JsonableError('Invalid anchor');
  const flags = `${REACTIONS_SQL}, COALESCE(um.flags, ARRAY['read', 'historical']) AS flags`;
  const before = await rows<MessageRow & { flags: string[] }>(
    db,
    `SELECT m.*, ${flags} ${base} AND m.id < :anchor ORDER BY m.id DESC LIMIT :n`,
    { ...repl, anchor: anchorId, n: query.numBefore + 1 },
  );
  const after = await rows<MessageRow & { flags: string[] }>(
    db,
    `SELECT m.*, ${flags} ${base} AND m.id >= :anchor ORDER BY m.id ASC LIMIT :n`,
    { ...repl, anchor: anchorId, n: query.numAfter + 2 },
  );
  const foundAnchor = after[0] !== undefined && Number(after[0].id) === anchorId;
  const afterKept = after.slice(0, query.numAfter + (foundAnchor ? 1 : 0));
  const beforeKept = before.slice(0, query.numBefore).reverse();
  const shown = [...beforeKept, ...afterKept];
  const users = await usersByIds(
    db,
    realm.id,
    shown.flatMap((row) => [row.sender_id, ...(row.recipient_ids ?? [])]),
  );
  const streams = new Map<number, Stream | undefined>();
  const messages = [];
  for (const row of shown) {
    if (row.stream_id !== null && !streams.has(row.stream_id))
      streams.set(row.stream_id, await streamById(db, realm.id, row.stream_id));
    messages.push({
      ...formatMessage(actor, row, users, row.stream_id === null ? undefined : streams.get(row.stream_id), {
        applyMarkdown: query.applyMarkdown ?? true,
      }),
      flags: row.flags,
    });
  }
  return {
    messages,
    // Zulip answers `newest` (and `first_unread` with nothing unread) with the anchor it used,
    // LARGER_THAN_MAX_MESSAGE_ID; clients such as zulip-terminal test for that value.
    anchor: newest ? LARGER_THAN_MAX_MESSAGE_ID : anchorId,
    found_anchor: foundAnchor,
    found_oldest: before.length <= query.numBefore,
    found_newest: after.length <= afterKept.length,
    history_limited: false,
  };
}
