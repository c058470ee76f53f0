import { defineResource } from '../define.ts';
import { name, text } from './common.ts';

export const bundle = defineResource({
  name: 'bundle',
  table: 'content.bundles',
  path: '/bundles',
  schemaName: 'Bundle',
  description:
    'A top-up package: credits for a price. Administrators manage bundles; they are public by default so every user can ' +
    'list them (the list defaults to scope=public); a private bundle is a draft only administrators see.',
  adminOnlyWrite: true,
  defaultVisibility: 'public',
  defaultListScope: 'public',
  example: {
    id: '8d5a2e9c-0b1f-4c3d-8e5f-5061728394a5',
    name: 'Starter pack',
    description: '1,000 credits, enough for about a hundred images.',
    credits: 1000,
    price_cents: 1200,
    currency: 'CNY',
    is_active: true,
  },
  fields: {
    name: { schema: name(), writable: true, required: true },
    description: { schema: text(2000, 'What the bundle offers.'), writable: true },
    credits: {
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: 1_000_000_000,
        description: 'Credits granted when paid.',
      },
      writable: true,
      required: true,
    },
    price_cents: {
      schema: {
        type: 'integer',
        minimum: 0,
        maximum: 100_000_000,
        description: 'Price in the smallest unit of the currency.',
      },
      writable: true,
      required: true,
    },
    currency: {
      schema: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code; default CNY.' },
      writable: true,
    },
    is_active: {
      schema: { type: 'boolean', description: 'Whether new payments may be opened for it.' },
      writable: true,
    },
  },
});
