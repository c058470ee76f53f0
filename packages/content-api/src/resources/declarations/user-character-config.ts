import { defineResource } from '../define.ts';
import { text } from './common.ts';

export const userCharacterConfig = defineResource({
  name: 'user_character_config',
  table: 'content.user_character_configs',
  path: '/user-character-configs',
  schemaName: 'UserCharacterConfig',
  description: "A user's personal settings for chatting with one character (one per user and character).",
  conflictMessage: 'You already have a configuration for this character; change it with PATCH',
  example: {
    id: '1c8f5d2b-3a4e-4b6c-9d7e-8f9a0b1c2d3e',
    character_id: '0b7e4c1a-2f3d-4a5b-8c6d-7e8f9a0b1c2d',
    user_nickname: 'Sam',
    extra_prompt: 'Keep answers under three sentences.',
    temperature: 0.7,
    memory_enabled: true,
  },
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
