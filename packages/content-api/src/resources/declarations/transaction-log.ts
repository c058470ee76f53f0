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
