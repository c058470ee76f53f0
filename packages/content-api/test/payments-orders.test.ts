import { describe, expect, it } from 'vitest';
import { balanceOf, createTestUser } from '@muse/test-support/content';
import { developmentDouble, paymentSuite } from '@muse/test-support/payments';

/** Orders with the development provider: opening, idempotency, paying once, refusals. */
describe('payments: orders and the development provider', () => {
  // Each test configures the provider itself: the first one starts without any.
  const suite = paymentSuite(developmentDouble, { configure: false });

  /** Opens the order's pay link as a payer would (a GET of `code_url`). */
  const pay = (codeUrl: string) => suite.kit.api('GET', codeUrl.slice(suite.stack.contentUrl.length));

  it('answers 501 while no provider is configured or it is disabled', async () => {
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    const none = await suite.kit.order(user, { bundle_id: bundle.id });
    expect(none.status).toBe(501);
    await suite.kit.configure({ provider: 'development', enabled: false });
    expect((await suite.kit.order(user, { bundle_id: bundle.id })).status).toBe(501);
    await suite.kit.configure({ enabled: true });
    expect((await suite.kit.api('GET', '/api/v1/payments', user)).body).toEqual([]);
  });

  it('opens an order, pays it through the pay link, and credits the bundle once', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits: 300, price_cents: 2990 });
    const opened = await suite.kit.order(user, { bundle_id: bundle.id, provider: 'development' });
    expect(opened.status).toBe(201);
    const order = opened.body as { id: string; code_url: string; expires_at: string };
    expect(opened.body).toMatchObject({
      status: 'pending',
      provider: 'development',
      credits: 300,
      price_cents: 2990,
      currency: 'CNY',
      owner_id: user.id,
      paid_at: null,
    });
    expect(order.code_url).toContain('/api/v1/payment-notifications/development?');
    expect(new Date(order.expires_at).getTime() - Date.now()).toBeGreaterThan(800_000);
    // A later price change does not alter the open order.
    await suite.kit.api('PATCH', `/api/v1/bundles/${bundle.id}`, suite.admin, { price_cents: 1 });

    expect((await pay(order.code_url)).status).toBe(200);
    const paid = await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user);
    expect(paid.body).toMatchObject({ status: 'paid', price_cents: 2990, refunded_cents: 0 });
    expect(paid.body.paid_at).not.toBeNull();
    expect(await balanceOf(suite.stack, user.id)).toBe(300);
    expect(await suite.kit.ledgerOf(order.id)).toEqual([
      { kind: 'topup', amount: 300, reference: `payment:${order.id}` },
    ]);
    // Paying again (a resent notification) changes nothing.
    expect((await pay(order.code_url)).status).toBe(200);
    expect(await balanceOf(suite.stack, user.id)).toBe(300);
  });

  it('credits once when the same pay link arrives 50 times at once', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits: 70 });
    const order = (await suite.kit.order(user, { bundle_id: bundle.id })).body as {
      id: string;
      code_url: string;
    };
    const answers = await Promise.all(Array.from({ length: 50 }, () => pay(order.code_url)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    expect(await balanceOf(suite.stack, user.id)).toBe(70);
    expect(await suite.kit.ledgerOf(order.id)).toHaveLength(1);
  });

  it('refuses a forged or tampered pay link: nothing is credited', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits: 50, price_cents: 500 });
    const order = (await suite.kit.order(user, { bundle_id: bundle.id })).body as {
      id: string;
      code_url: string;
    };
    const link = new URL(order.code_url);
    const forged = new URL(link);
    forged.searchParams.set('signature', 'f'.repeat(64));
    const cheaper = new URL(link);
    cheaper.searchParams.set('amount_cents', '1');
    for (const url of [forged, cheaper]) {
      const answer = await pay(url.href);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'FAIL' });
    }
    expect((await suite.kit.api('GET', '/api/v1/payment-notifications/development')).status).toBe(400);
    expect((await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user)).body.status).toBe('pending');
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
    expect(await suite.kit.ledgerOf(order.id)).toEqual([]);
  });

  it('answers the first order again for a repeated Idempotency-Key, also concurrently, and 409 for another body', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    const other = await suite.kit.createBundle();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => suite.kit.order(user, { bundle_id: bundle.id }, 'buy-1')),
    );
    const ids = new Set(answers.map((answer) => (answer.body as { id: string }).id));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(9);
    expect((await suite.kit.order(user, { bundle_id: other.id }, 'buy-1')).status).toBe(409);
    // Keys are per user.
    expect(
      (await suite.kit.order(await createTestUser(suite.stack), { bundle_id: bundle.id }, 'buy-1')).status,
    ).toBe(201);
    expect((await suite.kit.api('GET', '/api/v1/payments', user)).body).toHaveLength(1);
  });

  it('caps the open orders of one account, also when they arrive at once (409), and frees a place once one is paid', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits: 10 });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => suite.kit.order(user, { bundle_id: bundle.id }, `cap-${i}`)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 201, 201, 409, 409, 409]);
    const refused = answers.find((answer) => answer.status === 409)!;
    expect(refused.body).toMatchObject({ code: 'conflict', details: { open_orders: 5 } });
    expect(refused.body.message).toMatch(/^You have 5 open orders/);
    // Nothing was half-written: five orders exist, the refused keys answer nothing.
    expect((await suite.kit.api('GET', '/api/v1/payments', user)).body).toHaveLength(5);
    // A repeat of an open order's key still answers it; another account is not limited by this one.
    const first = answers.find((answer) => answer.status === 201)!;
    const key = `cap-${answers.indexOf(first)}`;
    expect((await suite.kit.order(user, { bundle_id: bundle.id }, key)).status).toBe(200);
    expect((await suite.kit.order(await createTestUser(suite.stack), { bundle_id: bundle.id })).status).toBe(
      201,
    );

    expect((await pay(first.body.code_url as string)).status).toBe(200);
    expect((await suite.kit.order(user, { bundle_id: bundle.id })).status).toBe(201);
    expect((await suite.kit.order(user, { bundle_id: bundle.id })).status).toBe(409);
  });

  it('sells only public, active, priced bundles, with the configured provider', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const inactive = await suite.kit.createBundle({ is_active: false });
    expect((await suite.kit.order(user, { bundle_id: inactive.id })).status).toBe(409);
    const draft = await suite.kit.createBundle({ visibility: 'private' });
    expect((await suite.kit.order(user, { bundle_id: draft.id })).status).toBe(404);
    expect((await suite.kit.order(suite.admin, { bundle_id: draft.id })).status).toBe(409);
    const free = await suite.kit.createBundle({ price_cents: 0 });
    expect((await suite.kit.order(user, { bundle_id: free.id })).status).toBe(409);
    const bundle = await suite.kit.createBundle();
    expect((await suite.kit.order(user, { bundle_id: bundle.id, provider: 'alipay' })).status).toBe(409);
    expect((await suite.kit.order(user, { bundle_id: bundle.id, provider: 'paypal' })).status).toBe(422);
    expect((await suite.kit.order(user, {})).status).toBe(422);
    expect((await suite.kit.order(user, { bundle_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(
      404,
    );
    const barred = await createTestUser(suite.stack, { revoked: ['payment:create:own'] });
    expect((await suite.kit.order(barred, { bundle_id: bundle.id })).status).toBe(403);
    expect((await suite.kit.api('GET', '/api/v1/payments', user)).body).toEqual([]);
  });

  it('lets administrators list and filter every payment; users see their own', async () => {
    await suite.kit.configure({ provider: 'development', enabled: true });
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    const first = (await suite.kit.order(user, { bundle_id: bundle.id })).body as {
      id: string;
      code_url: string;
    };
    await suite.kit.order(user, { bundle_id: bundle.id });
    await pay(first.code_url);
    const paid = await suite.kit.api('GET', '/api/v1/payments?scope=all&status=paid&limit=100', suite.admin);
    expect(paid.body.map((row: { id: string }) => row.id)).toContain(first.id);
    expect(paid.body.every((row: { status: string }) => row.status === 'paid')).toBe(true);
    expect((await suite.kit.api('GET', '/api/v1/payments?status=pending', user)).body).toHaveLength(1);
    expect((await suite.kit.api('GET', '/api/v1/payments?scope=all', user)).status).toBe(403);
  });
});
