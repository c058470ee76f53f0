import { sendMessage } from '../domain/actions/message-send.ts';
import { matchesNarrow, readReceipts } from '../domain/lib/messages.ts';
import { getMessages } from '../domain/presenters/messages.ts';
import { parseNarrow } from '../domain/lib/narrow.ts';
import { JsonableError } from '../http/errors.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { clientName } from '../http/user-agent.ts';
import { renderMessage } from '../domain/lib/mentions.ts';
import { MAX_MESSAGE_LENGTH } from '../domain/limits.ts';
import { EXAMPLE_MESSAGE, narrowSchema, schema } from './schemas.ts';

/** `to` is a channel name or id, or a JSON list of user ids or emails. */
function parseTo(raw: string): string | number | (string | number)[] {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'number' || typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((v) => typeof v === 'number' || typeof v === 'string'))
      return value;
  } catch {
    // a bare channel name, or a comma-separated list of emails
  }
  return raw.includes(',') ? raw.split(',').map((s) => s.trim()) : raw;
}

/** POST /messages and GET /messages. */
export const messageEndpoints = [
  endpoint({
    method: 'post',
    path: '/messages',
    operationId: 'sendMessage',
    summary:
      'Send a channel message (type stream/channel, to, topic, content) or a direct message (type direct/private)',
    description:
      '`to` is a channel name or id, or (direct messages) a JSON list of user ids or emails. ' +
      'An unknown channel id is 400 STREAM_DOES_NOT_EXIST with stream_id. A direct message, or an ' +
      '@**name** mention, to a user with no live event queue is pushed to their mobile devices. The ' +
      "message's `client` is the sending client's name, the User-Agent's first product (ZulipPython, " +
      'ZulipTerminal, …), as Zulip records it.',
    params: {
      type: p.string().describe('stream or channel; direct or private'),
      to: p.string(),
      topic: p.string().aliased('subject').default(''),
      content: p.string(),
    },
    response: { required: ['id'], properties: { id: { type: 'integer', description: 'The new message.' } } },
    example: {
      params: {
        type: 'stream',
        to: 'design',
        topic: 'launch plan',
        content: 'The mock-ups are ready for review.',
      },
      response: { id: 42 },
    },
    view: async (params, actor, req) => {
      const to = parseTo(params.to);
      const kind = params.type;
      const client = clientName(req.get('user-agent'));
      let id: number;
      // The action starts the push notifications and outgoing webhooks once it committed.
      if (kind === 'stream' || kind === 'channel') {
        if (Array.isArray(to) && (to.length !== 1 || to[0] === undefined))
          throw new JsonableError('Invalid channel');
        const channel = Array.isArray(to) ? (to[0] as string | number) : to;
        id = await sendMessage(
          actor,
          { kind: 'stream', to: channel, topic: params.topic },
          params.content,
          client,
        );
      } else if (kind === 'direct' || kind === 'private') {
        const destination = { kind: 'direct' as const, to: Array.isArray(to) ? to : [to] };
        id = await sendMessage(actor, destination, params.content, client);
      } else throw new JsonableError('Invalid message type');
      return { id };
    },
  }),
  endpoint({
    method: 'get',
    path: '/messages',
    operationId: 'getMessages',
    summary: "The caller's messages of a narrow around an anchor, or the given ones",
    description:
      'The narrow takes every operator of Zulip (see GET /messages/matches_narrow). Narrowed to a ' +
      'channel whose history the caller may read (public, for members; shared history, for subscribers), ' +
      'or to `channels:public`, messages the caller never received are included with flags read, ' +
      'historical. A channel the caller may not see answers as one that does not exist. With a `search` ' +
      'term each message carries `match_content` and `match_subject`, the found words in ' +
      '`<span class="highlight">`. With `message_ids`, the listed messages the caller may read that ' +
      'match the narrow, without anchor fields; it cannot be combined with anchor or num_before/num_after.',
    params: {
      anchor: p.string().optional().describe('A message id, newest (default), oldest, first_unread or date'),
      anchor_date: p
        .string()
        .optional()
        .describe(
          "With anchor=date: an ISO 8601 time; the anchor is the narrow's first message sent at or after it.",
        ),
      include_anchor: p
        .bool()
        .optional()
        .describe('Whether the anchor message itself is included (default true).'),
      num_before: p.int().optional(),
      num_after: p.int().optional(),
      message_ids: p.json<number[]>({ type: 'array', items: { type: 'integer', minimum: 0 } }).optional(),
      narrow: p.json<unknown[]>(narrowSchema).default([]),
      apply_markdown: p.bool().default(true),
      client_gravatar: p.bool().default(true),
      use_first_unread_anchor: p.bool().default(false).describe('Deprecated: anchor first_unread.'),
    },
    response: {
      required: ['messages', 'history_limited'],
      properties: {
        messages: { type: 'array', items: schema('Message') },
        anchor: { type: 'integer' },
        found_anchor: { type: 'boolean' },
        found_oldest: { type: 'boolean' },
        found_newest: { type: 'boolean' },
        history_limited: { type: 'boolean' },
      },
    },
    example: {
      params: {
        anchor: 'newest',
        num_before: 20,
        num_after: 0,
        narrow: [{ operator: 'channel', operand: 'design' }],
      },
      response: {
        messages: [EXAMPLE_MESSAGE],
        anchor: 42,
        found_anchor: true,
        found_oldest: true,
        found_newest: true,
        history_limited: false,
      },
    },
    view: async (params, actor) => {
      const narrow = parseNarrow(params.narrow);
      if (params.message_ids) {
        const range = (['anchor', 'include_anchor', 'num_before', 'num_after'] as const).filter(
          (name) => params[name] !== undefined,
        );
        if (params.use_first_unread_anchor) range.unshift('use_first_unread_anchor' as never);
        if (range.length > 0)
          throw new JsonableError(
            `Unsupported parameter combination: ${['message_ids', ...range].join(', ')}`,
          );
        if (params.message_ids.length > 5000)
          throw new JsonableError('Too many messages requested (maximum 5000).');
        return getMessages(actor, {
          narrow,
          anchor: 'newest',
          numBefore: 0,
          numAfter: 0,
          messageIds: params.message_ids,
          applyMarkdown: params.apply_markdown,
        });
      }
      const numBefore = params.num_before ?? 0;
      const numAfter = params.num_after ?? 0;
      if (numBefore < 0 || numAfter < 0) throw new JsonableError('Invalid num_before or num_after');
      if (numBefore + numAfter > 5000) throw new JsonableError('Too many messages requested (maximum 5000).');
      return getMessages(actor, {
        narrow,
        anchor: params.use_first_unread_anchor ? 'first_unread' : (params.anchor ?? 'newest'),
        ...(params.anchor_date === undefined ? {} : { anchorDate: params.anchor_date }),
        includeAnchor: params.include_anchor ?? true,
        applyMarkdown: params.apply_markdown,
        numBefore,
        numAfter,
      });
    },
  }),
  endpoint({
    method: 'get',
    path: '/messages/matches_narrow',
    operationId: 'checkMessagesMatchNarrow',
    summary: 'Which of the given messages match a narrow, with their highlighted matches',
    description:
      'Of `msg_ids`, the messages the caller received that match `narrow`, each with `match_content` ' +
      '(rendered content) and `match_subject` (HTML-escaped topic); with a `search` term the found words ' +
      'are wrapped in `<span class="highlight">`. Operators: channel/stream (name or id), topic, sender ' +
      '(email, id, me), dm/pm-with (emails or ids), dm-including/group-pm-with, is (dm, private, starred, ' +
      'mentioned, alerted, unread, resolved, followed, muted), has (link, attachment, image, reaction), id, ' +
      'near, with, channels (public, web-public), search; any term may be negated.',
    params: {
      msg_ids: p.json<number[]>({ type: 'array', items: { type: 'integer', minimum: 0 } }),
      narrow: p.json<unknown[]>(narrowSchema),
    },
    response: {
      required: ['messages'],
      properties: {
        messages: {
          type: 'object',
          description: 'By message id.',
          additionalProperties: {
            type: 'object',
            required: ['match_content', 'match_subject'],
            properties: { match_content: { type: 'string' }, match_subject: { type: 'string' } },
          },
        },
      },
    },
    example: {
      params: { msg_ids: [42, 43], narrow: [{ operator: 'search', operand: 'mock-ups' }] },
      response: {
        messages: {
          '42': {
            match_content:
              '<p>The <span class="highlight">mock</span>-<span class="highlight">ups</span> are ready for review.</p>',
            match_subject: 'launch plan',
          },
        },
      },
    },
    view: async (params, actor) => {
      if (params.msg_ids.length > 5000)
        throw new JsonableError('Too many messages requested (maximum 5000).');
      return {
        messages: Object.fromEntries(await matchesNarrow(actor, parseNarrow(params.narrow), params.msg_ids)),
      };
    },
  }),
  endpoint({
    method: 'post',
    path: '/messages/render',
    operationId: 'renderMessage',
    summary: 'Render Markdown as a message would be rendered (a preview), without sending it',
    description:
      "content is Markdown in Zulip's dialect; the answer is the HTML a message with it would " +
      "carry, with mentions, channel links and linkifiers resolved for the caller's organization, " +
      'so a client can show a preview. Nothing is stored and no event is sent; any member may call ' +
      "it. Read-only, yet counted as a write against the caller's rate limit.",
    params: { content: p.string({ maxLength: MAX_MESSAGE_LENGTH }) },
    response: { required: ['rendered'], properties: { rendered: { type: 'string', description: 'HTML.' } } },
    example: {
      params: { content: '**Ship it** on Friday, @**Grace Hopper**?' },
      response: {
        rendered:
          '<p><strong>Ship it</strong> on Friday, <span class="user-mention" data-user-id="9">@Grace Hopper</span>?</p>',
      },
    },
    view: async (params, actor) => ({ rendered: (await renderMessage(actor, params.content)).rendered }),
  }),
  endpoint({
    method: 'get',
    path: '/messages/{message_id}/read_receipts',
    operationId: 'getReadReceipts',
    summary: 'Who read a message',
    description:
      'Active users other than the sender who read the message and allow read receipts (send_read_receipts), ' +
      'without users who muted the caller or whom the caller muted. A message the caller cannot read is ' +
      '400 "Invalid message(s)".',
    params: { message_id: p.id() },
    response: {
      required: ['user_ids'],
      properties: { user_ids: { type: 'array', items: { type: 'integer' } } },
    },
    example: { params: { message_id: 42 }, response: { user_ids: [9, 10] } },
    view: async ({ message_id }, actor) => ({ user_ids: await readReceipts(actor, message_id) }),
  }),
];
