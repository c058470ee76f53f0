import { defineResource } from '../define.ts';
import { name, optionalFileId, tags, text } from './common.ts';

export const character = defineResource({
  name: 'character',
  table: 'content.characters',
  path: '/characters',
  schemaName: 'Character',
  description: 'An AI character: its persona (system prompt), how it greets, and how it looks.',
  fields: {
    name: { schema: name("The character's name."), writable: true, required: true },
    avatar_file_id: { schema: optionalFileId('Avatar image.'), writable: true, references: 'file' },
    description: { schema: text(2000, 'Short public description shown in listings.'), writable: true },
    persona: {
      schema: text(20000, 'The system prompt that defines how the character behaves and speaks.'),
      writable: true,
    },
    greeting: {
      schema: text(4000, 'The first message the character sends in a new conversation.'),
      writable: true,
    },
    tags: { schema: tags, writable: true },
  },
});
