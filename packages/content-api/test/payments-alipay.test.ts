import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { balanceOf, createTestUser } from '@muse/test-support/content';
import { outTradeNo, paymentSuite } from '@muse/test-support/payments';
import { startFakeAlipay } from '@muse/test-support/fakes/alipay';

/** Alipay (open API, RSA2) against a fake gateway that checks signatures both ways. */
describe('payments: Alipay', () => {
  const suite = paymentSuite(startFakeAlipay);
  const openOrder = suite.openOrder;

  it('buys credits: precreate gives the QR code, page pay the link; the notification credits once', async () => {
    const { user, order } = await openOrder(500, 4990);
    expect(order.code_url).toMatch(/^https:\/\/qr\.alipay\.com\//);
    const page = new URL(order.pay_url);
    expect(`${page.origin}${page.pathname}`).toBe(suite.provider.url);
    expect(page.searchParams.get('method')).toBe('alipay.trade.page.pay');
    expect(JSON.parse(page.searchParams.get('biz_content')!)).toMatchObject({
      out_trade_no: outTradeNo(order.id),
      total_amount: '49.90',
      product_code: 'FAST_INSTANT_TRADE_PAY',
    });
    const placed = suite.provider.orders.get(outTradeNo(order.id))!;
    expect(placed).toMatchObject({ total_amount: '49.90' });
    expect(placed.notify_url).toBe(`${suite.stack.contentUrl}/api/v1/payment-notifications/alipay`);
    suite.provider.pay(outTradeNo(order.id));
    const answer = await suite.provider.send(suite.provider.notification(outTradeNo(order.id)));
    expect(answer).toEqual({ status: 200, body: 'success' });
    expect((await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user)).body).toMatchObject({
      status: 'paid',
      provider: 'alipay',
      provider_reference: placed.trade_no,
    });
    expect(await balanceOf(suite.stack, user.id)).toBe(500);
    expect(await suite.kit.ledgerOf(order.id)).toEqual([
      { kind: 'topup', amount: 500, reference: `payment:${order.id}` },
    ]);
    expect(suite.provider.refusedRequests).toBe(0);
  });

  it('credits once for 50 copies of the notification arriving at once', async () => {
    const { user, order } = await openOrder(60);
    suite.provider.pay(outTradeNo(order.id));
    const message = suite.provider.notification(outTradeNo(order.id));
    const answers = await Promise.all(Array.from({ length: 50 }, () => suite.provider.send(message)));
    expect(answers.every((answer) => answer.status === 200 && answer.body === 'success')).toBe(true);
    expect(await balanceOf(suite.stack, user.id)).toBe(60);
    expect(await suite.kit.ledgerOf(order.id)).toHaveLength(1);
  });

  it('refuses forged, downgraded, tampered, foreign and unknown notifications: nothing is credited', async () => {
    const { user, order } = await openOrder(100, 990);
    const no = outTradeNo(order.id);
    suite.provider.pay(no);
    const genuine = suite.provider.notification(no);
    const cases = [
      suite.provider.notification(no, { forgeSignature: true }),
      suite.provider.notification(no, { signType: 'RSA' }),
      suite.provider.notification(no, { total_amount: '0.01' }),
      suite.provider.notification(no, { app_id: '2021009999999999' }),
      suite.provider.notification(no, { seller_id: '2088000000000000' }),
      { ...genuine, body: genuine.body.replace('total_amount=9.90', 'total_amount=0.01') },
    ];
    suite.provider.orders.set('e'.repeat(32), {
      ...suite.provider.orders.get(no)!,
      out_trade_no: 'e'.repeat(32),
    });
    cases.push(suite.provider.notification('e'.repeat(32)));
    for (const message of cases)
      expect(await suite.provider.send(message)).toEqual({ status: 400, body: 'fail' });
    expect((await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user)).body.status).toBe('pending');
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
    expect(await suite.kit.ledgerOf(order.id)).toEqual([]);
    expect(await suite.provider.send(genuine)).toEqual({ status: 200, body: 'success' });
    expect(await balanceOf(suite.stack, user.id)).toBe(100);
  });

  it('fails the order when Alipay refuses the request signature, and refuses answers not signed by Alipay', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const settings = suite.provider.settings();
    await suite.kit.configure({
      ...settings,
      secrets: { private_key: other.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64') },
    });
    const refusedBefore = suite.provider.refusedRequests;
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    expect((await suite.kit.order(user, { bundle_id: bundle.id })).status).toBe(502);
    expect(suite.provider.refusedRequests).toBe(refusedBefore + 1);
    expect((await suite.kit.api('GET', '/api/v1/payments', user)).body[0]).toMatchObject({
      status: 'failed',
    });
    await suite.kit.configure({
      ...settings,
      platform_public_key: other.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    expect((await suite.kit.order(user, { bundle_id: bundle.id })).status).toBe(502);
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
  });

  const paidOrder = async (credits: number, price: number) => {
    const { user, order } = await openOrder(credits, price);
    suite.provider.pay(outTradeNo(order.id));
    expect(await suite.provider.send(suite.provider.notification(outTradeNo(order.id)))).toEqual({
      status: 200,
      body: 'success',
    });
    return { user, order };
  };
  const refund = (id: string, body: Record<string, unknown>) =>
    suite.kit.api('POST', `/api/v1/payments/${id}/refunds`, suite.admin, body);

  it('refunds in part, then the rest, through alipay.trade.refund; the ledger takes the credits back once each', async () => {
    const { user, order } = await paidOrder(100, 990);
    const partial = await refund(order.id, { amount_cents: 300, reason: 'asked by the user' });
    expect(partial.body).toMatchObject({ status: 'paid', refunded_cents: 300, refunded_credits: 30 });
    expect(suite.provider.orders.get(outTradeNo(order.id))!.refunded_cents).toBe(300);
    const rest = await refund(order.id, {});
    expect(rest.body).toMatchObject({ status: 'refunded', refunded_cents: 990, refunded_credits: 100 });
    expect(suite.provider.orders.get(outTradeNo(order.id))!.refunded_cents).toBe(990);
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
    expect((await suite.kit.ledgerOf(order.id)).map((entry) => entry.amount)).toEqual([100, -30, -70]);
  });

  it('gives the credits back when Alipay refuses the refund', async () => {
    const { user, order } = await paidOrder(100, 990);
    suite.provider.orders.delete(outTradeNo(order.id));
    const refused = await refund(order.id, { amount_cents: 500 });
    expect(refused.status).toBe(502);
    expect(refused.body.message).toContain('ACQ.TRADE_NOT_EXIST');
    expect(await balanceOf(suite.stack, user.id)).toBe(100);
    expect((await suite.kit.ledgerOf(order.id)).map((entry) => entry.amount)).toEqual([100, -50, 50]);
  });
});
