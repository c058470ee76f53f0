/*
 * Editing a message (`PATCH /messages/{id}`): its content by the sender, its topic or channel by
 * whoever may move it, with the rest of the topic when asked; the checks, the stored history entry,
 * the recomputed mention flags and the `update_message` events. Deleting is message-delete.ts; the
 * history's presentation is presenters/message-history.ts.
 */
import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent, type ChatEvent } from '../lib/events/log.ts';
import { userHasGroupSetting } from '../lib/group-settings.ts';
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../limits.ts';
import { accessibleMessage } from '../lib/message-access.ts';
import { mentionFlags, renderMessage } from '../lib/mentions.ts';
import { REALM_POLICY } from '../lib/realm-policy.ts';
import { streamById, type Stream } from '../lib/streams.ts';
import { isAdmin, isGuest } from '../lib/users.ts';
import { moveHolders, type HolderGroup } from '../lib/message-moves.ts';
import { exec, rows, type Transaction, transact } from '@muse/core';

export const PROPAGATE_MODES = ['change_one', 'change_later', 'change_all'] as const;
export type PropagateMode = (typeof PROPAGATE_MODES)[number];

export interface MessageEdit {
  content: string | undefined;
  topic: string | undefined;
  streamId: number | undefined;
  propagateMode: PropagateMode;
}

const secondsSince = (d: Date) => (Date.now() - new Date(d).getTime()) / 1000;
const seconds = (d: Date) => Math.floor(new Date(d).getTime() / 1000);

const noPermission = () => new JsonableError("You don't have permission to edit this message");

/**
 * `PATCH /messages/{id}`: the sender edits the content within the organization's limit; anyone
 * allowed moves it to another topic or channel within theirs (administrators without limit),
 * with the rest of the topic when `propagate_mode` says so. Mentions are computed again; each
 * edit is kept in the message's history; everyone who has the message gets `update_message`.
 */
export async function editMessage(actor: Actor, messageId: number, edit: MessageEdit): Promise<void> {
  const { db, user } = actor;
  if (edit.content === undefined && edit.topic === undefined && edit.streamId === undefined)
    throw new JsonableError('Nothing to change');
  if (edit.content !== undefined && edit.streamId !== undefined)
    throw new JsonableError('Cannot change message content while changing channel');
  await transact(db, async (t) => {
    const { row, stream } = await accessibleMessage(actor, messageId, t, true);
    const topic = edit.topic === undefined ? undefined : checkTopic(edit.topic);
    const newStream = await checkMove(actor, { row, stream }, topic, edit.streamId);
    const content = edit.content === undefined ? undefined : checkContent(actor, row, edit.content);
    const moved = (topic !== undefined && topic !== row.topic) || newStream !== undefined;
    const rendered = content === undefined ? undefined : await renderMessage(actor, content, t);
    const entry: Record<string, unknown> = { user_id: user.id, timestamp: Math.floor(Date.now() / 1000) };
    if (content !== undefined && rendered) {
      Object.assign(entry, {
        prev_content: row.content,
        prev_rendered_content: row.rendered_content,
        content,
        rendered_content: rendered.rendered,
      });
    }
    if (topic !== undefined && topic !== row.topic) Object.assign(entry, { prev_topic: row.topic, topic });
    if (newStream) Object.assign(entry, { prev_stream: stream?.id, stream: newStream.id });
    const ids = moved ? await topicMessageIds(actor, row, edit.propagateMode, t) : [messageId];
    // Before the messages change channel: who keeps, loses and gains them (lib/message-moves.ts).
    const move =
      newStream && stream
        ? await moveHolders(db, t, { messageId, ids, from: stream, to: newStream })
        : undefined;
    await exec(
      db,
      `UPDATE chat.messages SET
         content = CASE WHEN id = :messageId THEN COALESCE(:content, content) ELSE content END,
         rendered_content = CASE WHEN id = :messageId THEN COALESCE(:rendered, rendered_content) ELSE rendered_content END,
         topic = COALESCE(:topic, topic), stream_id = COALESCE(:streamId, stream_id),
         edit_history = CASE WHEN id = :messageId THEN edit_history || CAST(:entry AS jsonb) ELSE edit_history END,
         last_edit_time = CASE WHEN id = :messageId AND :contentChanged THEN now() ELSE last_edit_time END,
         last_moved_time = CASE WHEN :moved THEN now() ELSE last_moved_time END
       WHERE id IN (:ids)`,
      {
        messageId,
        ids,
        content: content ?? null,
        rendered: rendered?.rendered ?? null,
        topic: topic ?? null,
        streamId: newStream?.id ?? null,
        entry: JSON.stringify(entry),
        contentChanged: content !== undefined,
        moved,
      },
      t,
    );
    if (rendered) await updateMentionFlags(actor, messageId, rendered.mentions, row, t);
    for (const lost of move?.lost ?? [])
      await sendEvent(db, t, lost.users, {
        type: 'delete_message',
        message_id: lost.messageId,
        message_ids: [lost.messageId],
        message_type: 'stream',
        stream_id: stream!.id,
        topic: row.topic,
      });
    await announceEdit(actor, t, move?.holders ?? (await holdersByFlags(actor, messageId, t)), {
      messageId,
      ids,
      row,
      stream,
      newStream,
      topic: moved ? (topic ?? row.topic) : undefined,
      content,
      rendered: rendered?.rendered,
      propagateMode: edit.propagateMode,
    });
  });
}

function checkTopic(raw: string): string {
  const topic = raw.trim() === '(no topic)' ? '' : raw.trim();
  if ([...topic].length > MAX_TOPIC_LENGTH)
    throw new JsonableError(`Topic too long (limit: ${MAX_TOPIC_LENGTH} characters)`);
  return topic;
}

function checkContent(actor: Actor, row: { sender_id: number; date_sent: Date }, content: string): string {
  if (row.sender_id !== actor.user.id) throw noPermission();
  if (!REALM_POLICY.allow_message_editing)
    throw new JsonableError('Your organization has turned off message editing');
  const limit = REALM_POLICY.message_content_edit_limit_seconds;
  if (limit !== null && secondsSince(row.date_sent) > limit)
    throw new JsonableError('The time limit for editing this message has passed');
  if (content.trim() === '') throw new JsonableError('Message must not be empty');
  if ([...content].length > MAX_MESSAGE_LENGTH)
    throw new JsonableError(`Message too long (limit: ${MAX_MESSAGE_LENGTH} characters)`);
  return content;
}

/** The checks of moving a message: channel messages only, the organization's groups and time limits. */
async function checkMove(
  actor: Actor,
  { row, stream }: { row: { date_sent: Date }; stream: Stream | undefined },
  topic: string | undefined,
  streamId: number | undefined,
): Promise<Stream | undefined> {
  const { db, realm, user } = actor;
  if (topic === undefined && streamId === undefined) return undefined;
  if (!stream) {
    if (streamId !== undefined) throw new JsonableError('Direct messages cannot be moved to channels.');
    throw new JsonableError('Direct messages cannot have topics.');
  }
  if (isGuest(user)) throw noPermission();
  const limit =
    streamId !== undefined
      ? REALM_POLICY.move_messages_between_streams_limit_seconds
      : REALM_POLICY.move_messages_within_stream_limit_seconds;
  if (!isAdmin(user) && limit !== null && secondsSince(row.date_sent) > limit)
    throw new JsonableError("The time limit for editing this message's topic has passed.");
  if (streamId === undefined || streamId === stream.id) return undefined;
  const target = await streamById(db, realm.id, streamId);
  if (!target || target.is_archived) throw new JsonableError('Invalid channel ID');
  if (target.invite_only && !isAdmin(user)) {
    const subscribed = await rows(
      db,
      'SELECT 1 FROM chat.subscriptions WHERE stream_id = :id AND user_id = :userId AND active',
      { id: target.id, userId: user.id },
    );
    if (subscribed.length === 0) throw new JsonableError('Invalid channel ID');
  }
  if (!(await userHasGroupSetting(db, user, target.can_send_message_group)))
    throw new JsonableError('You do not have permission to post in this channel.');
  return target;
}

/** The messages a move takes along: this one, or the topic's later or all messages. */
async function topicMessageIds(
  actor: Actor,
  row: { id: string; stream_id: number | null; topic: string },
  mode: PropagateMode,
  t: Transaction,
): Promise<number[]> {
  if (mode === 'change_one') return [Number(row.id)];
  const found = await rows<{ id: string }>(
    actor.db,
    `SELECT id FROM chat.messages WHERE stream_id = :streamId AND lower(topic) = lower(:topic)
       ${mode === 'change_later' ? 'AND id >= :id' : ''} ORDER BY id FOR UPDATE`,
    { streamId: row.stream_id, topic: row.topic, id: row.id },
    t,
  );
  return found.map((f) => Number(f.id));
}

/**
 * Replaces the recipients' mention flags with those of the new content: a wildcard for everyone
 * goes on the message; rows are changed where they exist and written for those whose flags now
 * differ from the default (lib/user-messages.ts).
 */
async function updateMentionFlags(
  actor: Actor,
  messageId: number,
  mentions: Parameters<typeof mentionFlags>[1],
  row: { stream_id: number | null; topic: string },
  t: Transaction,
): Promise<void> {
  await exec(
    actor.db,
    'UPDATE chat.messages SET wildcard_mentioned = :wildcard WHERE id = :messageId',
    { messageId, wildcard: row.stream_id !== null && mentions.wildcard === 'channel' },
    t,
  );
  const holders = await rows<{ user_id: number }>(
    actor.db,
    'SELECT user_id FROM chat.message_holders(:messageId)',
    { messageId },
    t,
  );
  const flags = await mentionFlags(
    actor,
    mentions,
    { recipients: holders.map((h) => h.user_id), streamId: row.stream_id ?? undefined, topic: row.topic },
    t,
  );
  await exec(
    actor.db,
    `INSERT INTO chat.user_messages AS um (user_id, message_id, flags)
     SELECT h.user_id, :messageId, n.flags
     FROM chat.message_holders(:messageId) h
     LEFT JOIN unnest(CAST(:users AS int[]), CAST(:flags AS text[])) AS x(u, f) ON x.u = h.user_id
     CROSS JOIN LATERAL (SELECT ARRAY(
       SELECT f FROM unnest(h.flags) f WHERE f NOT IN ('mentioned', 'wildcard_mentioned')
       UNION ALL SELECT unnest(string_to_array(x.f, ','))) AS flags) n
     WHERE n.flags <> h.flags
       OR EXISTS (SELECT 1 FROM chat.user_messages e WHERE e.user_id = h.user_id AND e.message_id = :messageId)
     ON CONFLICT (user_id, message_id) DO UPDATE SET flags = EXCLUDED.flags`,
    {
      messageId,
      users: `{${[...flags.keys()].join(',')}}`,
      flags: `{${[...flags.values()].map((f) => `"${f.join(',')}"`).join(',')}}`,
    },
    t,
  );
}

/** Everyone who has the message, grouped by their flags on it. */
async function holdersByFlags(actor: Actor, messageId: number, t: Transaction): Promise<HolderGroup[]> {
  return rows<HolderGroup>(
    actor.db,
    `SELECT flags, array_agg(user_id ORDER BY user_id) AS users FROM chat.message_holders(:messageId)
     GROUP BY flags`,
    { messageId },
    t,
  );
}

/**
 * `update_message` to `holders` (everyone who has the message; after a move to another channel,
 * everyone who has any of the moved messages), one event per distinct set of their flags, and
 * to the editor.
 */
async function announceEdit(
  actor: Actor,
  t: Transaction,
  holders: HolderGroup[],
  edit: {
    messageId: number;
    ids: number[];
    row: { content: string; rendered_content: string; topic: string; stream_id: number | null };
    stream: Stream | undefined;
    newStream: Stream | undefined;
    topic: string | undefined;
    content: string | undefined;
    rendered: string | undefined;
    propagateMode: PropagateMode;
  },
): Promise<void> {
  const { db, user } = actor;
  const event: ChatEvent = {
    type: 'update_message',
    user_id: user.id,
    edit_timestamp: seconds(new Date()),
    message_id: edit.messageId,
    message_ids: edit.ids,
    rendering_only: false,
  };
  if (edit.content !== undefined) {
    Object.assign(event, {
      orig_content: edit.row.content,
      orig_rendered_content: edit.row.rendered_content,
      content: edit.content,
      rendered_content: edit.rendered,
      is_me_message: false,
    });
  }
  if (edit.stream) event.stream_id = edit.stream.id;
  if (edit.topic !== undefined || edit.newStream) {
    Object.assign(event, {
      propagate_mode: edit.propagateMode,
      orig_subject: edit.row.topic,
      ...(edit.topic !== edit.row.topic ? { subject: edit.topic, topic_links: [] } : {}),
      ...(edit.newStream ? { new_stream_id: edit.newStream.id } : {}),
    });
  }
  const groups = holders.some((g) => g.users.includes(user.id))
    ? holders
    : [...holders, { flags: [], users: [user.id] }];
  for (const group of groups) await sendEvent(db, t, group.users, { ...event, flags: group.flags });
}
