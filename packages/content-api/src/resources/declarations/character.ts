import { NotFoundError, ValidationError } from '@muse/core';
import { findGenerator } from '../../generators/generators.ts';
import { adapterFor } from '../../generators/adapters/registry.ts';
import { defineResource, type HookContext } from '../define.ts';
import { name, optionalFileId, tags, text } from './common.ts';

/** A character answers through an active text generator whose upstream can stream a reply. */
async function checkGenerator(values: Record<string, unknown>, { ctx, transaction }: HookContext) {
  if (typeof values.generator_id !== 'string') return;
  const generator = await findGenerator(ctx.db, values.generator_id, transaction);
  if (!generator || !generator.is_active) throw new NotFoundError('generator_id: no such generator');
  if (generator.kind !== 'text' || !adapterFor(generator.type).streamChat) {
    throw new ValidationError('The character cannot use this generator', [
      {
        path: '/generator_id',
        message: 'must be a text generator that can stream replies (builtin or openai)',
      },
    ]);
  }
}

export const character = defineResource({
  name: 'character',
  table: 'content.characters',
  path: '/characters',
  schemaName: 'Character',
  description:
    'An AI character: its persona (system prompt), how it greets, how it looks, and what answers for it.',
  example: {
    id: '0b7e4c1a-2f3d-4a5b-8c6d-7e8f9a0b1c2d',
    name: 'Professor Fox',
    avatar_file_id: null,
    description: 'A patient teacher of natural history.',
    persona: 'You are Professor Fox. You explain nature simply, with one vivid example per answer.',
    greeting: 'Hello! What shall we find out about today?',
    tags: ['education', 'nature'],
    generator_id: '00000000-0000-4000-8000-000000000003',
  },
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
    generator_id: {
      schema: {
        type: ['string', 'null'],
        format: 'uuid',
        description:
          "The text generator that writes the character's replies (builtin or openai). With one, each user " +
          "message in a conversation with the character starts a reply, charged to the message's author at the " +
          "generator's base_cost and streamed over the conversation's channel. 404 for an unknown or inactive one.",
      },
      writable: true,
    },
  },
  hooks: {
    beforeCreate: checkGenerator,
    beforeUpdate: (changes, _existing, hook) => checkGenerator(changes, hook),
  },
});
