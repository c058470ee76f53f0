import { transact } from '@muse/core';
import { currentUser } from '../auth/authenticate.ts';
import { listRows, parseListQuery } from '../listing/listing.ts';
import { appendMessage, MESSAGE_COLUMNS, type ConversationMessage } from '../conversations/messages.ts';
import { startReply } from '../conversations/replies.ts';
import type { Routes } from '../http/routes.ts';
import type { ResourceKit } from './define.ts';
import { LIST_PARAMETER_REFS } from './openapi.ts';

/**
 * Messages of a conversation: whoever may read the conversation reads them (the same 404 as
 * the conversation otherwise); its owner (or an administrator) adds them. Adding one announces
 * it on `conversation:<id>` (its sockets relay it) and, for a user message in a conversation
 * whose character has a text generator, starts the character's reply.
 */
export function conversationMessageRoutes(routes: Routes, kit: ResourceKit): void {
  const { ctx } = kit;
  const path = '/api/v1/conversations/{id}/messages';

  routes.add('get', path, async (req, res) => {
    const user = currentUser(req);
    const conversation = await kit.findReadable(user, String(req.params.id));
    const query = parseListQuery(req.query as Record<string, unknown>);
    const rows = await listRows<ConversationMessage>(
      ctx.db,
      {
        from: 'content.conversation_messages',
        columns: MESSAGE_COLUMNS,
        where: ['conversation_id = :conversationId'],
        replacements: { conversationId: conversation.id },
        hasVisibility: false,
      },
      // The conversation's access was checked above; its messages are not scoped on their own.
      { ...query, scope: 'all' },
      user,
    );
    res.json(rows.map((row) => ({ ...row, seq: Number(row.seq) })));
  });

  routes.add('post', path, async (req, res) => {
    const user = currentUser(req);
    const body = req.body as { role: 'user' | 'assistant' | 'system'; content: string; client_id?: string };
    const { message, created } = await transact(ctx.db, async (transaction) => {
      const conversation = await kit.findWritable(user, String(req.params.id), 'update', transaction);
      return appendMessage(ctx.db, transaction, conversation.id, {
        authorId: user.id,
        role: body.role,
        content: body.content,
        clientId: body.client_id,
      });
    });
    if (created) await startReply(ctx, message);
    res.status(created ? 201 : 200).json(message);
  });
}

const errorResponses = (...statuses: string[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        $ref: `#/components/responses/${{ '401': 'Unauthorized', '403': 'Forbidden', '404': 'NotFound', '422': 'ValidationFailed' }[status]}`,
      },
    ]),
  );

export const conversationMessagesOpenApi = {
  paths: {
    '/api/v1/conversations/{id}/messages': {
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description: 'The conversation id.',
          schema: { type: 'string', format: 'uuid' },
        },
      ],
      get: {
        tags: ['conversation'],
        operationId: 'listConversationMessages',
        summary: 'List the messages of a conversation',
        description:
          "Whoever may read the conversation may read its messages (another user's private conversation answers 404). " +
          'A plain JSON array; use desc=false for chronological order.',
        parameters: LIST_PARAMETER_REFS,
        responses: {
          '200': {
            description: 'The page',
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/ConversationMessage' } },
              },
            },
          },
          ...errorResponses('401', '403', '404', '422'),
        },
      },
      post: {
        tags: ['conversation'],
        operationId: 'createConversationMessage',
        summary: 'Add a message to a conversation',
        description:
          "The conversation's owner (needs conversation:update:own) or an administrator adds messages; another user's public " +
          "conversation answers 403, a private one 404. The conversation's sockets receive it (see /asyncapi.json); a user " +
          "message in a conversation whose character has a text generator starts the character's streamed reply.",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['role', 'content'],
                properties: {
                  role: { type: 'string', enum: ['user', 'assistant', 'system'] },
                  content: { type: 'string', minLength: 1, maxLength: 100000 },
                  client_id: { $ref: '#/components/schemas/ClientMessageId' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'This client_id was already stored by the caller: the stored message, nothing added',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ConversationMessage' } } },
          },
          '201': {
            description: 'Added',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ConversationMessage' } } },
          },
          ...errorResponses('401', '403', '404', '422'),
        },
      },
    },
  },
  components: {
    schemas: {
      ClientMessageId: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
        description:
          "The client's idempotency key for a message: the same author sending the same client_id to the same " +
          'conversation again gets the stored message back, and nothing is stored twice.',
      },
      ConversationMessage: {
        type: 'object',
        required: [
          'id',
          'conversation_id',
          'author_id',
          'role',
          'content',
          'seq',
          'client_id',
          'reply_to_id',
          'created_at',
          'updated_at',
        ],
        properties: {
          id: { type: 'string', format: 'uuid' },
          conversation_id: { type: 'string', format: 'uuid' },
          author_id: { type: ['string', 'null'], format: 'uuid', description: 'The user who added it.' },
          role: {
            type: 'string',
            enum: ['user', 'assistant', 'system'],
            description: 'Who speaks: the user, the character, or a system note.',
          },
          content: { type: 'string' },
          seq: {
            type: 'integer',
            minimum: 1,
            description: 'Its place in the conversation: 1, 2, 3... in the order messages were stored.',
          },
          client_id: {
            oneOf: [{ $ref: '#/components/schemas/ClientMessageId' }, { type: 'null' }],
            description: "The sender's idempotency key, if it sent one.",
          },
          reply_to_id: {
            type: ['string', 'null'],
            format: 'uuid',
            description: "For a character's reply: the message it answers.",
          },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
