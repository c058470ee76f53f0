import { defineResource } from '../define.ts';
import { text } from './common.ts';

export const inviteCode = defineResource({
  name: 'invite_code',
  table: 'content.invite_codes',
  path: '/invite-codes',
  schemaName: 'InviteCode',
  description:
    'A code that grants credits when redeemed (POST /invite-codes/redeem), at most once per user, at most max_uses times ' +
    'in total and not after expires_at. Administrators manage codes; users redeem codes they were given.',
  adminOnlyWrite: true,
  conflictMessage: 'An invite code with this code already exists',
  example: {
    id: 'b08d5b2f-3e4c-4f6a-9b8c-8394a5b6c7d8',
    code: 'SPRING-2026',
    description: 'For the spring workshop.',
    credits: 100,
    max_uses: 50,
    used_count: 0,
    expires_at: '2027-01-01T00:00:00.000Z',
  },
  fields: {
    code: {
      schema: {
        type: 'string',
        pattern: '^[A-Za-z0-9_-]{4,64}$',
        description: 'What users type; 4 to 64 letters, digits, - or _.',
      },
      writable: 'create',
      required: true,
    },
    description: { schema: text(500, 'Who the code is for.'), writable: true },
    credits: {
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: 1_000_000_000,
        description: 'Credits granted per redemption.',
      },
      writable: true,
      required: true,
    },
    max_uses: {
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: 10_000_000,
        description: 'How many users may redeem it in total.',
      },
      writable: true,
      required: true,
    },
    used_count: { schema: { type: 'integer', description: 'How many users redeemed it so far.' } },
    expires_at: {
      schema: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'No redemption after this instant; null never expires.',
      },
      writable: true,
    },
  },
});
