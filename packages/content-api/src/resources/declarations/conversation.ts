import { defineResource } from '../define.ts';
import { announceAccessChanged } from '../../conversations/messages.ts';
import { text } from './common.ts';

export const conversation = defineResource({
  name: 'conversation',
  table: 'content.conversations',
  path: '/conversations',
  schemaName: 'Conversation',
  description: 'A chat, usually with a character; its messages are under /conversations/{id}/messages.',
  example: {
    id: '2d9a6e3c-4b5f-4c7d-8e8f-9a0b1c2d3e4f',
    title: 'Why foxes have bushy tails',
    character_id: '0b7e4c1a-2f3d-4a5b-8c6d-7e8f9a0b1c2d',
    last_message_at: null,
  },
  fields: {
    title: { schema: text(200, 'Title shown in the conversation list.'), writable: true },
    character_id: {
      schema: {
        type: ['string', 'null'],
        format: 'uuid',
        description: 'The character spoken to; one the caller may read.',
      },
      writable: 'create',
      references: 'character',
      listFilter: true,
    },
    last_message_at: {
      schema: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'When the latest message was added.',
      },
    },
  },
  hooks: {
    // Who may read it decides what its open sockets may receive (sockets/hub.ts).
    async afterUpdate(row, previous, { ctx, transaction }) {
      if (row.visibility !== previous.visibility || row.owner_id !== previous.owner_id)
        announceAccessChanged(ctx.db, transaction, [row.id]);
    },
    async beforeDelete(row, { ctx, transaction }) {
      announceAccessChanged(ctx.db, transaction, [row.id]);
    },
  },
});
