import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { balanceOf, createTestUser } from '@muse/test-support/content';
import { outTradeNo, paymentSuite } from '@muse/test-support/payments';
import { startFakeWechatPay } from '@muse/test-support/fakes/wechat-pay';
import { createOutboundFetch, createSecretBox } from '@muse/core';
import { ledger, reconcilePayment } from '@muse/content-api';

/** WeChat Pay API v3 against a fake that checks signatures both ways. */
describe('payments: WeChat Pay API v3', () => {
  const suite = paymentSuite(startFakeWechatPay);
  const openOrder = suite.openOrder;

  it('buys credits: a Native order, the payer pays, the notification credits once', async () => {
    const { user, order } = await openOrder(300, 2990);
    expect(order.code_url).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);
    const placed = suite.provider.orders.get(outTradeNo(order.id))!;
    expect(placed).toMatchObject({
      total: 2990,
      mchid: suite.provider.identity.mchid,
      appid: suite.provider.identity.appid,
    });
    expect(placed.notify_url).toBe(`${suite.stack.contentUrl}/api/v1/payment-notifications/wechat_pay`);
    suite.provider.pay(outTradeNo(order.id));
    const answer = await suite.provider.send(suite.provider.notification(outTradeNo(order.id)));
    expect(answer.status).toBe(204);
    const paid = await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user);
    expect(paid.body).toMatchObject({
      status: 'paid',
      provider: 'wechat_pay',
      provider_reference: placed.transaction_id,
    });
    expect(await balanceOf(suite.stack, user.id)).toBe(300);
    expect(await suite.kit.ledgerOf(order.id)).toEqual([
      { kind: 'topup', amount: 300, reference: `payment:${order.id}` },
    ]);
    // A replay of the same notification later is taken and credits nothing more.
    expect((await suite.provider.send(suite.provider.notification(outTradeNo(order.id)))).status).toBe(204);
    expect(await balanceOf(suite.stack, user.id)).toBe(300);
    expect(suite.provider.refusedRequests).toBe(0);
  });

  it('credits once for 50 copies of the notification arriving at once', async () => {
    const { user, order } = await openOrder(80);
    suite.provider.pay(outTradeNo(order.id));
    const message = suite.provider.notification(outTradeNo(order.id));
    const answers = await Promise.all(Array.from({ length: 50 }, () => suite.provider.send(message)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(204));
    expect(await balanceOf(suite.stack, user.id)).toBe(80);
    expect(await suite.kit.ledgerOf(order.id)).toHaveLength(1);
  });

  it('credits once when notifications and provider queries confirm the order at the same time', async () => {
    const { user, order } = await openOrder(90);
    const no = outTradeNo(order.id);
    suite.provider.pay(no);
    // The workflow's step, run here as the worker runs it, against the same fake.
    const { config, database, logger } = suite.stack;
    const deps = {
      db: database.db,
      config,
      logger,
      outbound: createOutboundFetch({ allow: config.MUSE_OUTBOUND_ALLOW }),
      secrets: createSecretBox(config.MUSE_SECRETS_KEY),
    };
    const message = suite.provider.notification(no);
    const [answers, steps] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => suite.provider.send(message))),
      Promise.all(Array.from({ length: 5 }, () => reconcilePayment(deps, order.id))),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(204));
    expect(steps).toEqual(Array(5).fill({ state: 'settled' }));
    expect(await balanceOf(suite.stack, user.id)).toBe(90);
    expect(await suite.kit.ledgerOf(order.id)).toHaveLength(1);
  });

  it('refuses forged, stale, tampered, foreign and unknown notifications: nothing is credited', async () => {
    const { user, order } = await openOrder(100, 990);
    const no = outTradeNo(order.id);
    suite.provider.pay(no);
    const cases = [
      suite.provider.notification(no, { forgeSignature: true }),
      suite.provider.notification(no, { ageSeconds: -3600 }),
      suite.provider.notification(no, { amount: 1 }),
      suite.provider.notification(no, { mchid: '1900000999' }),
    ];
    const unsigned = suite.provider.notification(no);
    cases.push({ ...unsigned, headers: { 'Content-Type': 'application/json' } as never });
    const bodyChanged = suite.provider.notification(no);
    cases.push({
      ...bodyChanged,
      body: bodyChanged.body.replace('"TRANSACTION.SUCCESS"', '"TRANSACTION.FAKE"'),
    });
    // An order this server never opened (the fake knows it; Muse does not).
    suite.provider.orders.set('f'.repeat(32), {
      ...suite.provider.orders.get(no)!,
      out_trade_no: 'f'.repeat(32),
    });
    cases.push(suite.provider.notification('f'.repeat(32)));
    for (const message of cases) {
      const answer = await suite.provider.send(message);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'FAIL' });
    }
    expect((await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user)).body.status).toBe('pending');
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
    expect(await suite.kit.ledgerOf(order.id)).toEqual([]);
    // The genuine one still credits.
    expect((await suite.provider.send(suite.provider.notification(no))).status).toBe(204);
    expect(await balanceOf(suite.stack, user.id)).toBe(100);
  });

  it('fails the order when WeChat Pay refuses the request signature, and refuses unsigned answers', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const settings = suite.provider.settings();
    await suite.kit.configure({
      ...settings,
      secrets: { private_key: other.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    });
    const refusedBefore = suite.provider.refusedRequests;
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    const refused = await suite.kit.order(user, { bundle_id: bundle.id });
    expect(refused.status).toBe(502);
    expect(suite.provider.refusedRequests).toBe(refusedBefore + 1);
    const [failed] = (await suite.kit.api('GET', '/api/v1/payments', user)).body;
    expect(failed).toMatchObject({ status: 'failed' });

    // Answers signed by another key than the configured WeChat Pay public key are not believed.
    await suite.kit.configure({
      ...settings,
      platform_public_key: other.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    expect((await suite.kit.order(user, { bundle_id: bundle.id })).status).toBe(502);
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
  });

  it('fails the order (502) when the provider is at an address the outbound policy refuses', async () => {
    await suite.kit.configure({ ...suite.provider.settings(), api_base_url: 'http://10.0.0.1:9' });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    const refused = await suite.kit.order(user, { bundle_id: bundle.id }, 'blocked-1');
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ code: 'payment_provider_error' });
    expect((await suite.kit.api('GET', '/api/v1/payments', user)).body).toMatchObject([
      { status: 'failed', failure_reason: 'the provider could not be called' },
    ]);
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
  });

  const paidOrder = async (credits: number, price: number) => {
    const { user, order } = await openOrder(credits, price);
    suite.provider.pay(outTradeNo(order.id));
    expect((await suite.provider.send(suite.provider.notification(outTradeNo(order.id)))).status).toBe(204);
    return { user, order };
  };
  const refund = (id: string, body: Record<string, unknown>, as = suite.admin) =>
    suite.kit.api('POST', `/api/v1/payments/${id}/refunds`, as, body);

  it('refunds in part, then the rest: the provider refunds, the ledger takes the credits back once each', async () => {
    const { user, order } = await paidOrder(100, 990);
    expect((await refund(order.id, { amount_cents: 300 }, user)).status).toBe(403);
    const partial = await refund(order.id, { amount_cents: 300, reason: 'asked by the user' });
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ status: 'paid', refunded_cents: 300, refunded_credits: 30 });
    expect(await balanceOf(suite.stack, user.id)).toBe(70);
    expect((await refund(order.id, { amount_cents: 700 })).status).toBe(409);
    const rest = await refund(order.id, {});
    expect(rest.body).toMatchObject({ status: 'refunded', refunded_cents: 990, refunded_credits: 100 });
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
    expect(
      suite.provider.refunds.filter((entry) => entry.out_trade_no === outTradeNo(order.id)),
    ).toMatchObject([{ refund: 300 }, { refund: 690 }]);
    expect((await suite.kit.ledgerOf(order.id)).map((entry) => entry.amount)).toEqual([100, -30, -70]);
    expect((await refund(order.id, {})).status).toBe(409);
    const stats = await suite.kit.api('GET', '/api/v1/payments/stats', suite.admin);
    expect(stats.body.by_status.refunded.count).toBeGreaterThanOrEqual(1);
    expect(stats.body.refunded_cents).toBeGreaterThanOrEqual(990);
    expect((await suite.kit.api('GET', '/api/v1/payments/stats', user)).status).toBe(403);
  });

  it('refuses a refund that would make the balance negative unless forced', async () => {
    const { user, order } = await paidOrder(100, 990);
    await suite.stack.database.db.transaction((transaction) =>
      ledger.postEntry(suite.stack.database.db, transaction, {
        userId: user.id,
        amount: -90,
        kind: 'adjustment',
        reference: `spent:${order.id}`,
      }),
    );
    const refused = await refund(order.id, {});
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'refund_exceeds_balance',
      details: { balance: 10, credits: 100 },
    });
    expect(await balanceOf(suite.stack, user.id)).toBe(10);
    const forced = await refund(order.id, { force: true });
    expect(forced.body).toMatchObject({ status: 'refunded', refunded_cents: 990, refunded_credits: 10 });
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
  });

  it('gives the credits back when the provider refuses the refund', async () => {
    const { user, order } = await paidOrder(100, 990);
    suite.provider.orders.delete(outTradeNo(order.id));
    const refused = await refund(order.id, { amount_cents: 500 });
    expect(refused.status).toBe(502);
    expect(await balanceOf(suite.stack, user.id)).toBe(100);
    expect((await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user)).body).toMatchObject({
      status: 'paid',
      refunded_cents: 0,
      refunded_credits: 0,
    });
    expect((await suite.kit.ledgerOf(order.id)).map((entry) => entry.amount)).toEqual([100, -50, 50]);
  });

  it('answers 501 when WeChat Pay is selected but not fully configured', async () => {
    await suite.kit.configure({ secrets: { api_v3_key: null } });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    const answer = await suite.kit.order(user, { bundle_id: bundle.id });
    expect(answer.status).toBe(501);
    expect(answer.body.message).toContain('api_v3_key');
    expect((await suite.kit.api('GET', '/api/v1/payments', user)).body).toEqual([]);
  });
});
