import { defineResource } from '../define.ts';

const dateTime = (description: string) => ({
  schema: { type: ['string', 'null'], format: 'date-time', description },
});

const PAY_LINK =
  'https://muse.example.com/api/v1/payment-notifications/development?out_trade_no=9e6b3f0d1c2a4d4e9f6a61728394a5b6' +
  '&amount_cents=1200&signature=5b1f0e4c9a7d3b2e8f6a1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b';

/**
 * A top-up order. Read through the generic list and get-one; it is opened with
 * `POST /api/v1/payments` and moved only by the payments module (src/payments), which owns its
 * transitions and credits it through the ledger.
 */
export const payment = defineResource({
  name: 'payment',
  table: 'content.payments',
  path: '/payments',
  schemaName: 'Payment',
  description:
    'A top-up order for a bundle, paid through the configured payment provider. Users open orders ' +
    '(`POST /api/v1/payments`) and read their own; administrators read all (scope=all), filter them and refund them. ' +
    'Status: pending → paid (credited once, ledger entry `topup` with reference `payment:<id>`) | closed (expired or ' +
    'closed unpaid) | failed (the provider refused it); paid → refunded once refunds reach the price.',
  readOnly: true,
  privateOnly: true,
  example: {
    id: '9e6b3f0d-1c2a-4d4e-9f6a-61728394a5b6',
    bundle_id: '8d5a2e9c-0b1f-4c3d-8e5f-5061728394a5',
    credits: 1000,
    price_cents: 1200,
    currency: 'CNY',
    status: 'pending',
    provider: 'development',
    provider_reference: null,
    // The development provider's link (src/payments/providers/development.ts).
    code_url: PAY_LINK,
    pay_url: PAY_LINK,
    expires_at: '2026-03-01T09:45:00.000Z',
    paid_at: null,
    closed_at: null,
    refunded_cents: 0,
    refunded_credits: 0,
    needs_refund: false,
    failure_reason: null,
  },
  fields: {
    bundle_id: {
      schema: { type: ['string', 'null'], format: 'uuid', description: 'The bundle bought.' },
    },
    credits: {
      schema: { type: 'integer', description: 'Credits granted when paid (copied from the bundle).' },
    },
    price_cents: { schema: { type: 'integer', description: 'Amount to pay (copied from the bundle).' } },
    currency: { schema: { type: 'string' } },
    status: {
      schema: {
        type: 'string',
        enum: ['pending', 'paid', 'closed', 'failed', 'refunded'],
        description:
          'pending until the provider confirms payment (paid), the order expires (closed) or fails.',
      },
      listFilter: true,
    },
    provider: {
      schema: {
        type: 'string',
        enum: ['wechat_pay', 'alipay', 'development', 'manual'],
        description:
          'Who takes the payment (`manual`: settled by an administrator before providers existed).',
      },
      listFilter: true,
    },
    provider_reference: {
      schema: { type: ['string', 'null'], description: "The payment provider's transaction id, once paid." },
    },
    code_url: {
      schema: {
        type: ['string', 'null'],
        description:
          'What to show as a QR code for paying on another device (WeChat Pay Native, Alipay precreate).',
      },
    },
    pay_url: {
      schema: {
        type: ['string', 'null'],
        description: 'A page to open for paying on this device (Alipay page pay; the development provider).',
      },
    },
    expires_at: dateTime('When an unpaid order is closed.'),
    paid_at: dateTime('When the provider confirmed payment.'),
    closed_at: dateTime('When it was closed or failed.'),
    refunded_cents: {
      schema: { type: 'integer', description: 'Refunded so far (refunds accepted by the provider).' },
    },
    refunded_credits: { schema: { type: 'integer', description: 'Credits taken back by refunds so far.' } },
    needs_refund: {
      schema: {
        type: 'boolean',
        description:
          'Paid at the provider after it was closed: nothing was credited, and the money is to be refunded.',
      },
      listFilter: true,
    },
    failure_reason: { schema: { type: ['string', 'null'], description: 'Why it was closed or failed.' } },
  },
});
