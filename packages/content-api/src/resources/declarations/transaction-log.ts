import { defineResource } from '../define.ts';

export const transactionLog = defineResource({
  name: 'transaction_log',
  table: 'content.transaction_logs',
  path: '/transaction-logs',
  schemaName: 'TransactionLog',
  description:
    "An entry of the credit ledger: every change of a user's balance. Read-only; users read their own, administrators use scope=all.",
  readOnly: true,
  privateOnly: true,
  example: {
    id: 'af7c4a1e-2d3b-4e5f-8a7b-728394a5b6c7',
    amount: 1000,
    balance_after: 1000,
    kind: 'topup',
    reference: 'payment:9e6b3f0d-1c2a-4d4e-9f6a-61728394a5b6',
    reverses_id: null,
    description: 'Starter pack',
  },
  fields: {
    amount: { schema: { type: 'integer', description: 'Credits added (positive) or taken (negative).' } },
    balance_after: {
      schema: { type: 'integer', minimum: 0, description: 'The balance right after this entry.' },
    },
    kind: {
      schema: {
        type: 'string',
        enum: ['grant', 'charge', 'refund', 'topup', 'adjustment', 'invite'],
        description: 'Why the balance moved.',
      },
      listFilter: true,
    },
    reference: {
      schema: {
        type: ['string', 'null'],
        description: 'What caused it, e.g. `payment:<id>` or `invite:<code id>:<user id>`.',
      },
    },
    reverses_id: {
      schema: {
        type: ['string', 'null'],
        format: 'uuid',
        description: 'For a refund: the charge it reverses.',
      },
    },
    description: { schema: { type: 'string' } },
  },
});
