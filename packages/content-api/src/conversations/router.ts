import { transact } from '@muse/core';
import type { ContentContext } from '../context.ts';
import { currentUser } from '../auth/authenticate.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { listRows, parseListQuery } from '../listing/listing.ts';
import { conversation } from '../resources/declarations/conversation.ts';
import { createResourceKit } from '../resources/kit.ts';
import { appendMessage, MESSAGE_COLUMNS, type ConversationMessage } from './messages.ts';
import { startReply } from './replies.ts';

/**
 * Messages of a conversation: whoever may read the conversation reads them (the same 404 as
 * the conversation otherwise); its owner (or an administrator) adds them. Adding one announces
 * it on `conversation:<id>` (its sockets relay it) and, for a user message in a conversation
 * whose character has a text generator, starts the character's reply.
 */
export function conversationsRoutes(ctx: ContentContext): Routes {
  const routes = new Routes();
  const conversations = createResourceKit(ctx, conversation);

  route(routes, 'get', '/api/v1/conversations/{id}/messages', async (req, res) => {
    const user = currentUser(req);
    const { id } = await conversations.findReadable(user, req.params.id);
    const rows = await listRows<ConversationMessage>(
      ctx.db,
      {
        from: 'content.conversation_messages',
        columns: MESSAGE_COLUMNS,
        where: ['conversation_id = :conversationId'],
        replacements: { conversationId: id },
        hasVisibility: false,
      },
      // The conversation's access was checked above; its messages are not scoped on their own.
      { ...parseListQuery(req.query), scope: 'all' },
      user,
    );
    res.json(rows.map((row) => ({ ...row, seq: Number(row.seq) })));
  });

  route(routes, 'post', '/api/v1/conversations/{id}/messages', async (req, res) => {
    const user = currentUser(req);
    const { role, content, client_id: clientId } = req.body;
    const { message, created } = await transact(ctx.db, async (transaction) => {
      const { id } = await conversations.findWritable(user, req.params.id, 'update', transaction);
      return appendMessage(ctx.db, transaction, id, { authorId: user.id, role, content, clientId });
    });
    if (created) await startReply(ctx, message);
    res.status(created ? 201 : 200).json(message);
  });

  return routes;
}
