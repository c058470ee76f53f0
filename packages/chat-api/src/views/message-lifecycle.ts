import { changeFlags, checkFlag, markAsRead } from '../domain/actions/message-flags.ts';
import { editMessage, PROPAGATE_MODES } from '../domain/actions/message-edit.ts';
import { deleteMessage } from '../domain/actions/message-delete.ts';
import { messageHistory } from '../domain/presenters/message-history.ts';
import { changeReaction, REACTION_TYPES } from '../domain/actions/reactions.ts';
import { accessibleStream } from '../domain/lib/channels.ts';
import { getMessages, readMessage } from '../domain/presenters/messages.ts';
import { parseNarrow } from '../domain/lib/narrow.ts';
import { endpoint } from '../http/endpoint.ts';
import { JsonableError } from '../http/errors.ts';
import { p } from '../http/params.ts';
import { EXAMPLE_MESSAGE, narrowSchema, schema } from './schemas.ts';
import { transact } from '@muse/core';

const ids = { type: 'array', items: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } };

const reactionParams = {
  message_id: p.id(),
  emoji_name: p.string({ nonEmpty: true }),
  emoji_code: p.string().optional(),
  reaction_type: p.oneOf(REACTION_TYPES).optional(),
};

/** One message: read, edit, move, delete, its history, reactions, flags and marking read. */
export const messageLifecycleEndpoints = [
  endpoint({
    method: 'get',
    path: '/messages/{message_id}',
    operationId: 'getMessage',
    summary: 'One message the caller may read, with its Markdown (raw_content)',
    description:
      'The message as GET /messages would give it (rendered HTML unless apply_markdown is false), ' +
      'with the Markdown it was sent as in raw_content. A message the caller may not read (not a ' +
      'recipient, and not in a channel whose history the caller may read), or none, is 400 "Invalid ' +
      'message(s)".',
    params: {
      message_id: p.id(),
      apply_markdown: p.bool().default(true),
      allow_empty_topic_name: p.bool().default(false),
    },
    response: {
      required: ['raw_content', 'message'],
      properties: { raw_content: { type: 'string' }, message: schema('Message') },
    },
    example: {
      params: { message_id: 42 },
      response: { raw_content: 'The mock-ups are ready for review.', message: EXAMPLE_MESSAGE },
    },
    view: ({ message_id, apply_markdown }, actor) => readMessage(actor, message_id, apply_markdown),
  }),
  endpoint({
    method: 'patch',
    path: '/messages/{message_id}',
    operationId: 'updateMessage',
    summary: "Edit a message's content (its sender), or move it to another topic or channel",
    description:
      'Content: the sender, within realm_message_content_edit_limit_seconds. Moving: non-guests within ' +
      'the move limits of /register (administrators without limit); propagate_mode change_later or ' +
      'change_all moves the rest of the topic too; content cannot change in the same request as the ' +
      'channel. Everyone who has the message gets update_message. A move to another channel: those ' +
      'who no longer have a moved message get delete_message for it; those who have any moved ' +
      'message afterwards, gainers included, get update_message (see the README for who keeps and gains).',
    params: {
      message_id: p.id(),
      content: p.string().optional(),
      topic: p.string().aliased('subject').optional(),
      stream_id: p.int().optional(),
      propagate_mode: p.oneOf(PROPAGATE_MODES).default('change_one'),
    },
    response: { properties: { detached_uploads: { type: 'array', items: { type: 'object' } } } },
    example: {
      params: { message_id: 42, content: 'The mock-ups are ready for review (second round).' },
      response: { detached_uploads: [] },
    },
    view: async (params, actor) => {
      await editMessage(actor, params.message_id, {
        content: params.content,
        topic: params.topic,
        streamId: params.stream_id,
        propagateMode: params.propagate_mode,
      });
      return { detached_uploads: [] };
    },
  }),
  endpoint({
    method: 'delete',
    path: '/messages/{message_id}',
    operationId: 'deleteMessage',
    summary: 'Delete a message (its sender, or an administrator)',
    description:
      "Who may: an administrator, a member of the channel's can_delete_any_message_group, or the " +
      "sender if in the channel's can_delete_own_message_group (direct messages: the sender) and " +
      "within the organization's message_content_delete_limit_seconds. The message and its flags are removed at " +
      'once; the caller and everyone who had it get delete_message. Otherwise 400 "You don\'t have ' +
      'permission to delete this message" or "The time limit for deleting this message has passed"; ' +
      'a message the caller cannot read is 400 "Invalid message(s)".',
    params: { message_id: p.id() },
    example: { params: { message_id: 42 }, response: {} },
    view: async ({ message_id }, actor) => {
      await deleteMessage(actor, message_id);
    },
  }),
  endpoint({
    method: 'get',
    path: '/messages/{message_id}/history',
    operationId: 'getMessageHistory',
    summary: "A message's edit history, oldest first",
    description:
      'The message as first sent, then one snapshot after each edit or move, each with what the ' +
      'edit changed (prev_content, prev_topic, prev_stream and the rendered forms), who made it (user_id) and when (timestamp). ' +
      'A message the caller cannot read is 400 "Invalid message(s)".',
    params: { message_id: p.id(), allow_empty_topic_name: p.bool().default(false) },
    response: {
      required: ['message_history'],
      properties: { message_history: { type: 'array', items: { type: 'object' } } },
    },
    example: {
      params: { message_id: 42 },
      response: {
        message_history: [
          {
            topic: 'launch plan',
            content: 'The mock-ups are ready for review.',
            rendered_content: '<p>The mock-ups are ready for review.</p>',
            timestamp: 1764300000,
            user_id: 8,
          },
        ],
      },
    },
    view: async ({ message_id }, actor) => ({ message_history: await messageHistory(actor, message_id) }),
  }),
  endpoint({
    method: 'post',
    path: '/messages/{message_id}/reactions',
    operationId: 'addReaction',
    summary: 'React to a message with an emoji',
    description:
      'A Unicode emoji is given by its code (checked against the emoji dataset) with one of that ' +
      "emoji's names or aliases (`Invalid emoji name.` otherwise), or by a name alone. Zulip's extra " +
      'emoji is `zulip`/`zulip`. Custom emoji do not exist (no uploads): every realm emoji id is refused.',
    params: reactionParams,
    example: { params: { message_id: 42, emoji_name: 'octopus' }, response: {} },
    view: async ({ message_id, ...reaction }, actor) => {
      await changeReaction(actor, message_id, 'add', reaction);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/messages/{message_id}/reactions',
    operationId: 'removeReaction',
    summary: "Remove the caller's reaction",
    description:
      "Takes the same emoji fields as adding one and removes the caller's own reaction only. " +
      'Everyone who has the message gets a reaction event with op remove. A reaction the caller did ' +
      'not make is 400 "Reaction doesn\'t exist."; an unknown emoji name or code is 400 as when ' +
      'adding.',
    params: reactionParams,
    example: { params: { message_id: 42, emoji_name: 'octopus' }, response: {} },
    view: async ({ message_id, ...reaction }, actor) => {
      await changeReaction(actor, message_id, 'remove', reaction);
    },
  }),
  endpoint({
    method: 'post',
    path: '/messages/flags',
    operationId: 'updateMessageFlags',
    summary: "Add or remove a flag (read, starred, collapsed) on the caller's messages",
    description:
      'messages is a JSON list of message ids; op add or remove; flag read, starred or collapsed ' +
      '(another flag is 400 "Invalid flag: \'…\'"). Ids the caller did not receive are skipped. The ' +
      "answer lists the messages whose flag changed; the caller's clients get update_message_flags " +
      'with those ids (removing read also gives message_details, the conversation of each).',
    params: { messages: p.json<number[]>(ids), op: p.oneOf(['add', 'remove'] as const), flag: p.string() },
    response: {
      required: ['messages'],
      properties: { messages: ids, ignored_because_not_subscribed_channels: ids },
    },
    example: {
      params: { messages: [42, 43], op: 'add', flag: 'starred' },
      response: { messages: [42, 43], ignored_because_not_subscribed_channels: [] },
    },
    view: async (params, actor) => {
      const flag = checkFlag(params.flag);
      const changed = await transact(actor.db, (t) =>
        changeFlags(actor, { op: params.op, flag }, { messageIds: params.messages }, t),
      );
      return { messages: changed, ignored_because_not_subscribed_channels: [] };
    },
  }),
  endpoint({
    method: 'post',
    path: '/messages/flags/narrow',
    operationId: 'updateMessageFlagsForNarrow',
    summary: 'Add or remove a flag on the messages of a narrow around an anchor',
    description:
      'Selects messages as GET /messages does (anchor, num_before, num_after, include_anchor, ' +
      'narrow; at most 5000 in all, negative counts are 400) and changes the flag on those the ' +
      'caller received; the answer says how many were processed and changed and the first and last ' +
      "processed ids, so that a client can walk a long narrow in batches. The caller's clients get " +
      'update_message_flags.',
    params: {
      anchor: p.string(),
      include_anchor: p.bool().default(true),
      num_before: p.int(),
      num_after: p.int(),
      narrow: p.json<unknown[]>(narrowSchema).default([]),
      op: p.oneOf(['add', 'remove'] as const),
      flag: p.string(),
    },
    response: {
      required: [
        'processed_count',
        'updated_count',
        'first_processed_id',
        'last_processed_id',
        'found_oldest',
        'found_newest',
      ],
      properties: {
        processed_count: { type: 'integer' },
        updated_count: { type: 'integer' },
        first_processed_id: { type: ['integer', 'null'] },
        last_processed_id: { type: ['integer', 'null'] },
        found_oldest: { type: 'boolean' },
        found_newest: { type: 'boolean' },
        ignored_because_not_subscribed_channels: ids,
      },
    },
    example: {
      params: {
        anchor: 'newest',
        num_before: 100,
        num_after: 0,
        narrow: [{ operator: 'channel', operand: 'design' }],
        op: 'add',
        flag: 'read',
      },
      response: {
        processed_count: 2,
        updated_count: 1,
        first_processed_id: 42,
        last_processed_id: 43,
        found_oldest: true,
        found_newest: true,
        ignored_because_not_subscribed_channels: [],
      },
    },
    view: async (params, actor) => {
      const flag = checkFlag(params.flag);
      if (params.num_before < 0 || params.num_after < 0)
        throw new JsonableError('Invalid num_before or num_after');
      if (params.num_before + params.num_after > 5000)
        throw new JsonableError('Too many messages requested (maximum 5000).');
      const found = await getMessages(actor, {
        anchor: params.anchor,
        numBefore: params.num_before,
        numAfter: params.num_after,
        includeAnchor: params.include_anchor,
        narrow: parseNarrow(params.narrow),
      });
      const processed = (found.messages as { id: number }[]).map((m) => m.id);
      const changed = await transact(actor.db, (t) =>
        changeFlags(actor, { op: params.op, flag }, { messageIds: processed }, t),
      );
      return {
        processed_count: processed.length,
        updated_count: changed.length,
        first_processed_id: processed[0] ?? null,
        last_processed_id: processed.at(-1) ?? null,
        found_oldest: found.found_oldest as boolean,
        found_newest: found.found_newest as boolean,
        ignored_because_not_subscribed_channels: [],
      };
    },
  }),
  endpoint({
    method: 'post',
    path: '/mark_all_as_read',
    operationId: 'markAllAsRead',
    summary: "Mark all the caller's messages read",
    description:
      'Adds the read flag to every unread message of the caller, in one request (complete is always ' +
      "true). The caller's clients get update_message_flags with op add, flag read and the ids.",
    response: { required: ['complete'], properties: { complete: { type: 'boolean' } } },
    example: { response: { complete: true } },
    view: async (_params, actor) => {
      await markAsRead(actor, {});
      return { complete: true };
    },
  }),
  endpoint({
    method: 'post',
    path: '/mark_stream_as_read',
    operationId: 'markStreamAsRead',
    summary: "Mark the caller's messages of a channel read",
    description:
      "Adds the read flag to the caller's unread messages of one channel. A channel the caller " +
      'cannot access is 400 "Invalid channel ID". The caller\'s clients get update_message_flags ' +
      'with the ids.',
    params: { stream_id: p.int() },
    example: { params: { stream_id: 2 }, response: {} },
    view: async ({ stream_id }, actor) => {
      await accessibleStream(actor, stream_id);
      await markAsRead(actor, { streamId: stream_id });
    },
  }),
  endpoint({
    method: 'post',
    path: '/mark_topic_as_read',
    operationId: 'markTopicAsRead',
    summary: "Mark the caller's messages of a topic read",
    description:
      "Adds the read flag to the caller's unread messages of one topic of a channel (the topic " +
      'compared case-insensitively). A channel the caller cannot access is 400 "Invalid channel ' +
      'ID". The caller\'s clients get update_message_flags with the ids.',
    params: { stream_id: p.int(), topic_name: p.string() },
    example: { params: { stream_id: 2, topic_name: 'launch plan' }, response: {} },
    view: async ({ stream_id, topic_name }, actor) => {
      await accessibleStream(actor, stream_id);
      await markAsRead(actor, { streamId: stream_id, topic: topic_name });
    },
  }),
];
