import { describe, expect, it } from 'vitest';
import { createTestUser } from '@muse/test-support/content';
import { developmentDouble, outTradeNo, paymentSuite } from '@muse/test-support/payments';
import { startFakeWechatPay } from '@muse/test-support/fakes/wechat-pay';
import {
  ConflictError,
  NotFoundError,
  PaymentNotPaidError,
  PaymentTimeoutError,
  ServerError,
  createContentClient,
  type Payment,
} from '../src/index.ts';

const clientOf = (baseUrl: string, token: string) => createContentClient({ baseUrl, token });

describe('@muse/sdk payments with the development provider', () => {
  const suite = paymentSuite(developmentDouble, { configure: false });

  it('creates an order, waits with progress while the payer pays, and sees the credits', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const client = clientOf(suite.stack.contentUrl, user.token);
    const bundle = await suite.kit.createBundle({ credits: 250, price_cents: 1990 });
    const order = await client.payments.create(bundle.id, { provider: 'development' });
    expect(order).toMatchObject({
      status: 'pending',
      credits: 250,
      price_cents: 1990,
      provider: 'development',
    });
    const seen: Payment['status'][] = [];
    const waiting = client.payments.waitFor(order.id, {
      pollInterval: 50,
      onProgress: (payment) => seen.push(payment.status),
    });
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    expect(await suite.provider.pay(order.code_url!)).toBe(200);
    const paid = await waiting;
    expect(paid).toMatchObject({ id: order.id, status: 'paid' });
    expect(seen[0]).toBe('pending');
    expect(seen.at(-1)).toBe('paid');
    expect((await client.GET('/api/v1/users/me')).data.balance).toBe(250);
  });

  it('answers the same order for the same idempotency key', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const client = clientOf(suite.stack.contentUrl, (await createTestUser(suite.stack)).token);
    const bundle = await suite.kit.createBundle();
    const first = await client.payments.create(bundle.id, { idempotencyKey: 'sdk-buy-1' });
    const again = await client.payments.create(bundle.id, { idempotencyKey: 'sdk-buy-1' });
    expect(again.id).toBe(first.id);
    // Without a key each call is a new order.
    expect((await client.payments.create(bundle.id)).id).not.toBe(first.id);
  });

  it('gives up after the timeout with PaymentTimeoutError, the payment still pending', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const client = clientOf(suite.stack.contentUrl, (await createTestUser(suite.stack)).token);
    const order = await client.payments.create((await suite.kit.createBundle()).id);
    const error = await client.payments.waitFor(order.id, { timeout: 300, pollInterval: 50 }).catch((e) => e);
    expect(error).toBeInstanceOf(PaymentTimeoutError);
    expect(error.payment).toMatchObject({ id: order.id, status: 'pending' });
  });

  it('throws the typed errors of the documented refusals', async () => {
    const client = clientOf(suite.stack.contentUrl, (await createTestUser(suite.stack)).token);
    const bundle = await suite.kit.createBundle();
    await suite.kit.configure({ provider: 'none' });
    await expect(client.payments.create(bundle.id)).rejects.toBeInstanceOf(ServerError);
    await suite.kit.configure({ provider: 'development', enabled: true });
    await expect(client.payments.create(crypto.randomUUID())).rejects.toBeInstanceOf(NotFoundError);
    const inactive = await suite.kit.createBundle({ is_active: false });
    await expect(client.payments.create(inactive.id)).rejects.toBeInstanceOf(ConflictError);
    await expect(client.payments.create(bundle.id, { provider: 'alipay' })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });
});

describe('@muse/sdk payments with WeChat Pay (fake) and the reconciliation worker', () => {
  const suite = paymentSuite(startFakeWechatPay, { worker: true });

  it('resolves once the notification arrives', async () => {
    const user = await createTestUser(suite.stack);
    const client = clientOf(suite.stack.contentUrl, user.token);
    const bundle = await suite.kit.createBundle({ credits: 40 });
    const order = await client.payments.create(bundle.id, { provider: 'wechat_pay' });
    expect(order.code_url).toMatch(/^weixin:\/\//);
    const waiting = client.payments.waitFor(order.id, { pollInterval: 50 });
    suite.provider.pay(outTradeNo(order.id));
    expect((await suite.provider.send(suite.provider.notification(outTradeNo(order.id)))).status).toBe(204);
    expect(await waiting).toMatchObject({ status: 'paid', credits: 40 });
  });

  it('throws PaymentNotPaidError once the order is closed', async () => {
    const client = clientOf(suite.stack.contentUrl, (await createTestUser(suite.stack)).token);
    const order = await client.payments.create((await suite.kit.createBundle()).id);
    // Closed at the provider: the workflow's query closes it here.
    suite.provider.orders.get(outTradeNo(order.id))!.trade_state = 'CLOSED';
    const error = await client.payments
      .waitFor(order.id, { timeout: 90_000, pollInterval: 100 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(PaymentNotPaidError);
    expect(error.payment).toMatchObject({
      id: order.id,
      status: 'closed',
      failure_reason: 'closed at the provider',
    });
  }, 120_000);
});
