import type { Router } from 'express';
import { QueryTypes } from 'sequelize';
import { EventBus } from '@muse/core';
import { currentUser } from '../auth/authenticate.ts';
import { listRows, parseListQuery } from '../listing/listing.ts';
import type { ResourceKit } from './define.ts';
import { LIST_PARAMETER_REFS } from './openapi.ts';

/** The EventBus channel of a conversation; its WebSocket relays what is published here. */
export const conversationChannel = (conversationId: string) => `conversation:${conversationId}`;

const MESSAGE_COLUMNS = 'id, conversation_id, author_id, role, content, created_at, updated_at';

/**
 * Messages of a conversation: whoever may read the conversation reads them (the same 404 as
 * the conversation otherwise); its owner (or an administrator) adds them. Adding one publishes
 * `{type: 'message.created', ...}` on `conversation:<id>` when the transaction commits.
 */
export function conversationMessageRoutes(router: Router, kit: ResourceKit): void {
  const { ctx } = kit;
  const path = '/api/v1/conversations/:id/messages';

  router.get(path, async (req, res) => {
    const user = currentUser(req);
    const conversation = await kit.findReadable(user, String(req.params.id));
    const query = parseListQuery(req.query as Record<string, unknown>);
    const rows = await listRows(
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
    res.json(rows);
  });

  router.post(path, async (req, res) => {
    const user = currentUser(req);
    const { role, content } = req.body as { role: string; content: string };
    const message = await ctx.db.transaction(async (transaction) => {
      const conversation = await kit.findWritable(user, String(req.params.id), 'update', transaction);
      const [row] = await ctx.db.query<{ id: string; created_at: Date }>(
        `INSERT INTO content.conversation_messages (conversation_id, author_id, role, content)
         VALUES (:conversationId, :authorId, :role, :content) RETURNING ${MESSAGE_COLUMNS}`,
        {
          replacements: { conversationId: conversation.id, authorId: user.id, role, content },
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      await ctx.db.query(
        'UPDATE content.conversations SET last_message_at = :at, updated_at = clock_timestamp() WHERE id = :id',
        { replacements: { at: row!.created_at, id: conversation.id }, transaction },
      );
      await EventBus.publish(
        ctx.db,
        conversationChannel(conversation.id),
        { type: 'message.created', conversation_id: conversation.id, message_id: row!.id, role },
        transaction,
      );
      return row!;
    });
    res.status(201).json(message);
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
          "conversation answers 403, a private one 404. Subscribers of the conversation's channel are notified.",
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
                },
              },
            },
          },
        },
        responses: {
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
      ConversationMessage: {
        type: 'object',
        required: ['id', 'conversation_id', 'author_id', 'role', 'content', 'created_at', 'updated_at'],
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
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
