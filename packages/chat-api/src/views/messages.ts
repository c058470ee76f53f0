import { sendMessage } from '../domain/actions/message-send.ts';
import { getMessages, narrowTerms } from '../domain/lib/messages.ts';
import { JsonableError } from '../http/errors.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { narrowSchema, schema } from './schemas.ts';

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
      '@**name** mention, to a user with no live event queue is pushed to their mobile devices.',
    params: {
      type: p.string().describe('stream or channel; direct or private'),
      to: p.string(),
      topic: p.string().aliased('subject').default(''),
      content: p.string(),
    },
    response: { required: ['id'], properties: { id: { type: 'integer', description: 'The new message.' } } },
    view: async (params, actor) => {
      const to = parseTo(params.to);
      const kind = params.type;
      let id: number;
      // The action starts the push notifications and outgoing webhooks once it committed.
      if (kind === 'stream' || kind === 'channel') {
        if (Array.isArray(to)) {
          if (to.length !== 1 || to[0] === undefined) throw new JsonableError('Invalid channel');
          id = await sendMessage(actor, { kind: 'stream', to: to[0], topic: params.topic }, params.content);
        } else id = await sendMessage(actor, { kind: 'stream', to, topic: params.topic }, params.content);
      } else if (kind === 'direct' || kind === 'private') {
        id = await sendMessage(actor, { kind: 'direct', to: Array.isArray(to) ? to : [to] }, params.content);
      } else throw new JsonableError('Invalid message type');
      return { id };
    },
  }),
  endpoint({
    method: 'get',
    path: '/messages',
    operationId: 'getMessages',
    summary: "The caller's messages around an anchor, narrowed by channel, topic, sender or is:dm",
    description:
      'Narrowed to a channel whose history the caller may read (public, for members; shared history, ' +
      'for subscribers), messages the caller never received are included with flags read, historical.',
    params: {
      anchor: p.string().default('newest').describe('A message id, newest, oldest or first_unread'),
      num_before: p.int().default(0),
      num_after: p.int().default(0),
      narrow: p.json<unknown[]>(narrowSchema).default([]),
      apply_markdown: p.bool().default(true),
      client_gravatar: p.bool().default(true),
      use_first_unread_anchor: p.bool().default(false).describe('Deprecated: anchor first_unread.'),
    },
    response: {
      required: ['messages', 'anchor', 'found_anchor', 'found_oldest', 'found_newest', 'history_limited'],
      properties: {
        messages: { type: 'array', items: schema('Message') },
        anchor: { type: 'integer' },
        found_anchor: { type: 'boolean' },
        found_oldest: { type: 'boolean' },
        found_newest: { type: 'boolean' },
        history_limited: { type: 'boolean' },
      },
    },
    view: async (params, actor) => {
      if (params.num_before < 0 || params.num_after < 0)
        throw new JsonableError('Invalid num_before or num_after');
      if (params.num_before + params.num_after > 5000)
        throw new JsonableError('Too many messages requested (maximum 5000).');
      return getMessages(actor, {
        anchor: params.use_first_unread_anchor ? 'first_unread' : params.anchor,
        applyMarkdown: params.apply_markdown,
        numBefore: params.num_before,
        numAfter: params.num_after,
        narrow: narrowTerms(params.narrow),
      });
    },
  }),
];
