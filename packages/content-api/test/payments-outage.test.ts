import { QueryTypes } from 'sequelize';
import { describe, it } from 'vitest';
import { balanceOf, createTestUser, type TestUser } from '@muse/test-support/content';
import { outTradeNo, paymentSuite, type ProviderDouble } from '@muse/test-support/payments';
import { startFakeWechatPay } from '@muse/test-support/fakes/wechat-pay';
import { startFakeAlipay } from '@muse/test-support/fakes/alipay';
import type { OutageMode, ProviderOutage } from '@muse/test-support/fakes/outage';

/**
 * Time is compressed through configuration, not slept through: a simulated minute is the
 * reconciler's longest pause between looks (MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS, 60 s in
 * production), the refund's longest pause between attempts is ten of them (10 minutes in
 * production), and a hung call is given up after 3 s (30 s in production; shorter would fail
 * the calls of a loaded machine, and the process's first call loads its HTTP client).
 */
const MINUTE_MS = 100;
const HOUR_MS = 60 * MINUTE_MS;
const COMPRESSED = {
  MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS: String(MINUTE_MS),
  MUSE_PAYMENT_REFUND_RETRY_MAX_MS: String(10 * MINUTE_MS),
  MUSE_PAYMENT_PROVIDER_TIMEOUT_MS: '3000',
};

/** What the outage test needs of a fake provider, whichever protocol it speaks. */
interface OutageDouble extends ProviderDouble {
  outage: ProviderOutage;
  pay(outTradeNo: string): void;
  /** The provider (re)sends its notification about the order; answers Muse's status. */
  notify(outTradeNo: string): Promise<number>;
  /** Cents refunded at the provider for the order, over all its refunds. */
  refundedAt(outTradeNo: string): number;
  /** The status with which Muse takes a notification. */
  accepted: number;
}

async function wechatPay(): Promise<OutageDouble> {
  const fake = await startFakeWechatPay();
  return {
    settings: () => fake.settings(),
    close: fake.close,
    outage: fake.outage,
    pay: fake.pay,
    notify: async (no) => (await fake.send(fake.notification(no))).status,
    refundedAt: (no) =>
      fake.refunds.filter((refund) => refund.out_trade_no === no).reduce((sum, r) => sum + r.refund, 0),
    accepted: 204,
  };
}

async function alipay(): Promise<OutageDouble> {
  const fake = await startFakeAlipay();
  return {
    settings: () => fake.settings(),
    close: fake.close,
    outage: fake.outage,
    pay: fake.pay,
    notify: async (no) => (await fake.send(fake.notification(no))).status,
    refundedAt: (no) => fake.orders.get(no)?.refunded_cents ?? 0,
    accepted: 200,
  };
}

const cases: [string, () => Promise<OutageDouble>, OutageMode][] = [
  ['WeChat Pay answering 503', wechatPay, 'unavailable'],
  ['Alipay not answering at all', alipay, 'hang'],
];

// Each provider's outage on a stack of its own: the two hours pass at once.
describe.concurrent.each(cases)(
  'payments: an hour-long outage of the provider (%s)',
  (_name, startProvider, mode) => {
    const suite = paymentSuite(startProvider, { worker: true, env: COMPRESSED });
    const payment = async (user: TestUser, id: string) =>
      (await suite.kit.api('GET', `/api/v1/payments/${id}`, user)).body;
    const stats = async () => (await suite.kit.api('GET', '/api/v1/payments/stats', suite.admin)).body;
    const refundsOf = (paymentId: string) =>
      suite.stack.database.db.query<{ status: string; amount_cents: number }>(
        'SELECT status, amount_cents FROM content.payment_refunds WHERE payment_id = :paymentId',
        { replacements: { paymentId }, type: QueryTypes.SELECT },
      );

    // The test's own `expect`: expect.poll needs to know its test while the other runs.
    it('answers 503 to orders, settles lost notifications and pending refunds once when it is back', async ({
      expect,
    }) => {
      const { provider, kit } = suite;
      // Before: a payment paid and credited (to refund later), two orders waiting to be paid.
      const refunded = await suite.openOrder(100, 990);
      provider.pay(outTradeNo(refunded.order.id));
      expect(await provider.notify(outTradeNo(refunded.order.id))).toBe(provider.accepted);
      const lost = await suite.openOrder(120, 1200);
      const late = await suite.openOrder(70, 700);
      const unpaid = await suite.openOrder(30, 300);

      provider.outage.start(mode);
      const outageStarted = Date.now();
      // Both payers pay as the provider goes down; its notifications are lost with it.
      provider.pay(outTradeNo(lost.order.id));
      provider.pay(outTradeNo(late.order.id));
      // One order is never paid and its time runs out while the provider is down.
      await suite.stack.database.db.query('UPDATE content.payments SET expires_at = now() WHERE id = :id', {
        replacements: { id: unpaid.order.id },
      });

      // Ordering answers 503 with Retry-After; nothing is left pending, nothing is charged.
      const buyer = await createTestUser(suite.stack);
      const bundle = await kit.createBundle({ credits: 50, price_cents: 500 });
      const refused = await kit.order(buyer, { bundle_id: bundle.id }, 'top-up-1');
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'service_unavailable' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await kit.api('GET', '/api/v1/payments', buyer)).body).toMatchObject([{ status: 'failed' }]);
      expect(await balanceOf(suite.stack, buyer.id)).toBe(0);

      // A refund asked for meanwhile stays pending, its credits taken, and is asked again later.
      const refund = await kit.api('POST', `/api/v1/payments/${refunded.order.id}/refunds`, suite.admin, {
        amount_cents: 400,
      });
      expect(refund.status).toBe(502);
      expect(await refundsOf(refunded.order.id)).toMatchObject([{ status: 'pending', amount_cents: 400 }]);
      expect(await balanceOf(suite.stack, refunded.user.id)).toBe(60);

      // What the administrator sees while it lasts.
      expect(await stats()).toMatchObject({
        by_status: { pending: { count: 3 }, failed: { count: 1 } },
        needs_refund: 0,
        pending_refunds: { count: 1, amount_cents: 400, credits: 40 },
      });

      // The hour passes: the reconciler and the refund's workflow keep asking, at their longest pauses.
      await expect
        .poll(
          () =>
            Date.now() - outageStarted >= HOUR_MS &&
            provider.outage.turnedAway('query') >= 4 &&
            provider.outage.turnedAway('refund') >= 2,
          { timeout: 4 * HOUR_MS, interval: MINUTE_MS },
        )
        .toBe(true);
      expect(await payment(lost.user, lost.order.id)).toMatchObject({ status: 'pending' });
      // Expired, but it cannot be closed at the provider yet, so it is not closed here either.
      expect(await payment(unpaid.user, unpaid.order.id)).toMatchObject({ status: 'pending' });
      expect(await payment(refunded.user, refunded.order.id)).toMatchObject({ refunded_cents: 400 });

      provider.outage.end();
      // The late notification arrives as the reconciler looks again: credited once either way.
      expect(await provider.notify(outTradeNo(late.order.id))).toBe(provider.accepted);
      const settled = { timeout: 30_000, interval: MINUTE_MS };
      // The lost one is found paid by the reconciler alone.
      await expect.poll(async () => (await payment(lost.user, lost.order.id)).status, settled).toBe('paid');
      await expect
        .poll(async () => (await refundsOf(refunded.order.id)).map((row) => row.status), settled)
        .toEqual(['succeeded']);
      await expect
        .poll(async () => (await payment(unpaid.user, unpaid.order.id)).status, settled)
        .toBe('closed');
      // The provider repeats its notification once more: it changes nothing.
      expect(await provider.notify(outTradeNo(lost.order.id))).toBe(provider.accepted);

      expect(await balanceOf(suite.stack, lost.user.id)).toBe(120);
      expect(await kit.ledgerOf(lost.order.id)).toHaveLength(1);
      expect(await balanceOf(suite.stack, late.user.id)).toBe(70);
      expect(await kit.ledgerOf(late.order.id)).toHaveLength(1);
      expect(await kit.ledgerOf(unpaid.order.id)).toEqual([]);
      expect(provider.refundedAt(outTradeNo(refunded.order.id))).toBe(400);
      expect((await kit.ledgerOf(refunded.order.id)).map((entry) => entry.amount)).toEqual([100, -40]);
      expect(await balanceOf(suite.stack, refunded.user.id)).toBe(60);

      // The refused order's key was released: the same request now opens the order.
      const again = await kit.order(buyer, { bundle_id: bundle.id }, 'top-up-1');
      expect(again.status).toBe(201);
      expect(again.body.code_url).toBeTruthy();

      expect(await stats()).toMatchObject({
        by_status: { pending: { count: 1 }, paid: { count: 3 }, failed: { count: 1 }, closed: { count: 1 } },
        needs_refund: 0,
        pending_refunds: { count: 0, amount_cents: 0, credits: 0 },
      });
      // The ledger equals the balances, account by account.
      const drift = await suite.stack.database.db.query(
        `SELECT u.id, u.balance, coalesce(sum(t.amount), 0) AS ledger
         FROM content.users u LEFT JOIN content.transaction_logs t ON t.owner_id = u.id
        GROUP BY u.id HAVING u.balance <> coalesce(sum(t.amount), 0)`,
        { type: QueryTypes.SELECT },
      );
      expect(drift).toEqual([]);
    }, 120_000);
  },
);
