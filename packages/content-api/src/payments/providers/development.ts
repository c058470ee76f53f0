import { createHmac, timingSafeEqual } from 'node:crypto';
import { NotificationRejected, type PaymentProviderAdapter, type ProviderDeps } from './types.ts';

/**
 * Development only (refused when NODE_ENV=production): no money moves. An order's pay link is
 * the notification itself, signed with a key only this server holds; opening it settles the
 * order as a provider's notification would, so `npm start` can complete a top-up offline.
 */
export function developmentProvider({ developmentKey }: ProviderDeps): PaymentProviderAdapter {
  const sign = (outTradeNo: string, amountCents: number) =>
    createHmac('sha256', developmentKey).update(`${outTradeNo}:${amountCents}`).digest('hex');
  return {
    name: 'development',
    async createOrder(order) {
      const link = new URL(order.notifyUrl);
      link.searchParams.set('out_trade_no', order.outTradeNo);
      link.searchParams.set('amount_cents', String(order.amountCents));
      link.searchParams.set('signature', sign(order.outTradeNo, order.amountCents));
      return { code_url: link.href, pay_url: link.href };
    },
    // The order's state lives in Muse only: nothing is paid until the link is opened.
    async query(outTradeNo) {
      return { outTradeNo, state: 'pending' };
    },
    async close() {},
    async refund() {},
    async verifyNotification({ query }) {
      const outTradeNo = query.get('out_trade_no') ?? '';
      const amountCents = Number(query.get('amount_cents'));
      const given = Buffer.from(query.get('signature') ?? '', 'utf8');
      const expected = Buffer.from(sign(outTradeNo, amountCents), 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new NotificationRejected('signature', 'the pay link is not signed by this server');
      return { outTradeNo, state: 'paid', amountCents, transactionId: `dev-${outTradeNo}` };
    },
    accepted: { status: 200, contentType: 'application/json', body: JSON.stringify({ code: 'SUCCESS' }) },
    rejected: (message) => ({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({ code: 'FAIL', message }),
    }),
  };
}
