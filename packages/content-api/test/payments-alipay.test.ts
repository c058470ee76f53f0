import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { balanceOf, createTestUser, type TestUser } from '../../../test/support/content.ts';
import { paymentKit } from '../../../test/support/payments.ts';
import { startFakeAlipay, type FakeAlipay } from '../../../test/support/fakes/alipay.ts';

/** Alipay (open API, RSA2) against a fake gateway that checks signatures both ways. */
describe('payments: Alipay', () => {
  let stack: TestStack;
  let admin: TestUser;
  let kit: ReturnType<typeof paymentKit>;
  let alipay: FakeAlipay;
  beforeAll(async () => {
    stack = await startTestStack();
    admin = await createTestUser(stack, { admin: true });
    kit = paymentKit(stack, admin);
    alipay = await startFakeAlipay();
  });
  afterAll(async () => {
    await alipay.close();
    await stack.stop();
  });
  beforeEach(() => kit.configure(alipay.settings()));

  const outTradeNo = (id: string) => id.replaceAll('-', '');
  const openOrder = async (credits = 100, price = 990) => {
    const user = await createTestUser(stack);
    const bundle = await kit.createBundle({ credits, price_cents: price });
    const answer = await kit.order(user, { bundle_id: bundle.id, provider: 'alipay' });
    expect(answer.status).toBe(201);
    return { user, order: answer.body as { id: string; code_url: string; pay_url: string } };
  };

  it('buys credits: precreate gives the QR code, page pay the link; the notification credits once', async () => {
    const { user, order } = await openOrder(500, 4990);
    expect(order.code_url).toMatch(/^https:\/\/qr\.alipay\.com\//);
    const page = new URL(order.pay_url);
    expect(`${page.origin}${page.pathname}`).toBe(alipay.url);
    expect(page.searchParams.get('method')).toBe('alipay.trade.page.pay');
    expect(JSON.parse(page.searchParams.get('biz_content')!)).toMatchObject({
      out_trade_no: outTradeNo(order.id),
      total_amount: '49.90',
      product_code: 'FAST_INSTANT_TRADE_PAY',
    });
    const placed = alipay.orders.get(outTradeNo(order.id))!;
    expect(placed).toMatchObject({ total_amount: '49.90' });
    expect(placed.notify_url).toBe(`${stack.contentUrl}/api/v1/payment-notifications/alipay`);
    alipay.pay(outTradeNo(order.id));
    const answer = await alipay.send(alipay.notification(outTradeNo(order.id)));
    expect(answer).toEqual({ status: 200, body: 'success' });
    expect((await kit.api('GET', `/api/v1/payments/${order.id}`, user)).body).toMatchObject({
      status: 'paid',
      provider: 'alipay',
      provider_reference: placed.trade_no,
    });
    expect(await balanceOf(stack, user.id)).toBe(500);
    expect(await kit.ledgerOf(order.id)).toEqual([
      { kind: 'topup', amount: 500, reference: `payment:${order.id}` },
    ]);
    expect(alipay.refusedRequests).toBe(0);
  });

  it('credits once for 50 copies of the notification arriving at once', async () => {
    const { user, order } = await openOrder(60);
    alipay.pay(outTradeNo(order.id));
    const message = alipay.notification(outTradeNo(order.id));
    const answers = await Promise.all(Array.from({ length: 50 }, () => alipay.send(message)));
    expect(answers.every((answer) => answer.status === 200 && answer.body === 'success')).toBe(true);
    expect(await balanceOf(stack, user.id)).toBe(60);
    expect(await kit.ledgerOf(order.id)).toHaveLength(1);
  });

  it('refuses forged, downgraded, tampered, foreign and unknown notifications: nothing is credited', async () => {
    const { user, order } = await openOrder(100, 990);
    const no = outTradeNo(order.id);
    alipay.pay(no);
    const genuine = alipay.notification(no);
    const cases = [
      alipay.notification(no, { forgeSignature: true }),
      alipay.notification(no, { signType: 'RSA' }),
      alipay.notification(no, { total_amount: '0.01' }),
      alipay.notification(no, { app_id: '2021009999999999' }),
      alipay.notification(no, { seller_id: '2088000000000000' }),
      { ...genuine, body: genuine.body.replace('total_amount=9.90', 'total_amount=0.01') },
    ];
    alipay.orders.set('e'.repeat(32), { ...alipay.orders.get(no)!, out_trade_no: 'e'.repeat(32) });
    cases.push(alipay.notification('e'.repeat(32)));
    for (const message of cases) expect(await alipay.send(message)).toEqual({ status: 400, body: 'fail' });
    expect((await kit.api('GET', `/api/v1/payments/${order.id}`, user)).body.status).toBe('pending');
    expect(await balanceOf(stack, user.id)).toBe(0);
    expect(await kit.ledgerOf(order.id)).toEqual([]);
    expect(await alipay.send(genuine)).toEqual({ status: 200, body: 'success' });
    expect(await balanceOf(stack, user.id)).toBe(100);
  });

  it('fails the order when Alipay refuses the request signature, and refuses answers not signed by Alipay', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const settings = alipay.settings();
    await kit.configure({
      ...settings,
      secrets: { private_key: other.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64') },
    });
    const refusedBefore = alipay.refusedRequests;
    const user = await createTestUser(stack);
    const bundle = await kit.createBundle();
    expect((await kit.order(user, { bundle_id: bundle.id })).status).toBe(502);
    expect(alipay.refusedRequests).toBe(refusedBefore + 1);
    expect((await kit.api('GET', '/api/v1/payments', user)).body[0]).toMatchObject({ status: 'failed' });
    await kit.configure({
      ...settings,
      platform_public_key: other.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    expect((await kit.order(user, { bundle_id: bundle.id })).status).toBe(502);
    expect(await balanceOf(stack, user.id)).toBe(0);
  });
});
