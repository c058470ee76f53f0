import { defineResource } from '../define.ts';
import { text } from './common.ts';

export const userCharacterConfig = defineResource({
  name: 'user_character_config',
  table: 'content.user_character_configs',
  path: '/user-character-configs',
  schemaName: 'UserCharacterConfig',
  description: "A user's personal settings for chatting with one character (one per user and character).",
  conflictMessage: 'You already have a configuration for this character; change it with PATCH',
  fields: {
    character_id: {
      schema: { type: 'string', format: 'uuid', description: 'The character; one the caller may read.' },
      writable: 'create',
      required: true,
      references: 'character',
      listFilter: true,
    },
    user_nickname: { schema: text(100, 'How the character addresses the user.'), writable: true },
    extra_prompt: {
      schema: text(4000, "Extra instructions appended to the character's persona."),
      writable: true,
    },
    temperature: {
      schema: {
        type: ['number', 'null'],
        minimum: 0,
        maximum: 2,
        description: 'Sampling temperature; null uses the default.',
      },
      writable: true,
    },
    memory_enabled: {
      schema: { type: 'boolean', description: 'Whether the character remembers earlier conversations.' },
      writable: true,
    },
  },
});
