import { ValidationError } from '@muse/core';
import { assertReferenceReadable } from '../access.ts';
import { defineResource } from '../define.ts';
import { text } from './common.ts';

/** What a favorite may point at: resources that can be public, so that favoriting others' makes sense. */
export const FAVORITE_TARGETS = [
  'character',
  'conversation',
  'project',
  'canvas',
  'file',
  'skill',
  'node_group',
] as const;

export const favorite = defineResource({
  name: 'favorite',
  table: 'content.favorites',
  path: '/favorites',
  schemaName: 'Favorite',
  description:
    'A bookmark of another resource (own or public). Creating one checks the caller may read the target (404 otherwise); ' +
    'a favorite stays when its target is deleted or made private, and reading the target then answers 404.',
  conflictMessage: 'This resource is already a favorite',
  example: {
    id: '7c4f1d8b-9a0e-4b2c-9d4e-4f5061728394',
    target_type: 'character',
    target_id: '0b7e4c1a-2f3d-4a5b-8c6d-7e8f9a0b1c2d',
    note: 'Good for the kids’ questions.',
  },
  fields: {
    target_type: {
      schema: { type: 'string', enum: [...FAVORITE_TARGETS], description: 'The kind of resource.' },
      writable: 'create',
      required: true,
      listFilter: true,
    },
    target_id: {
      schema: {
        type: 'string',
        format: 'uuid',
        description: 'The id of the resource; one the caller may read.',
      },
      writable: 'create',
      required: true,
    },
    note: { schema: text(1000, 'Why it was saved.'), writable: true },
  },
  hooks: {
    async beforeCreate(values, { ctx, user, transaction }) {
      if (typeof values.target_type !== 'string' || typeof values.target_id !== 'string') {
        throw new ValidationError('target_type and target_id are required');
      }
      await assertReferenceReadable(
        ctx.db,
        user,
        values.target_type,
        values.target_id,
        'target_id',
        transaction,
      );
    },
  },
});
