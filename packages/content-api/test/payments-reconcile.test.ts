import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { balanceOf, createTestUser, type TestUser } from '../../../test/support/content.ts';
import { paymentKit } from '../../../test/support/payments.ts';
import { startFakeWechatPay, type FakeWechatPay } from '../../../test/support/fakes/wechat-pay.ts';
import { READY_TIMEOUT_MS, startMuseServer, type MuseProcess } from '../../../test/support/processes.ts';

/** The payment workflow on a real Temporal worker: lost notifications and expiry. */
describe('payments: reconciliation workflow', () => {
  let stack: TestStack;
  let admin: TestUser;
  let kit: ReturnType<typeof paymentKit>;
  let wechat: FakeWechatPay;
  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    kit = paymentKit(stack, admin);
    wechat = await startFakeWechatPay();
  });
  afterAll(async () => {
    await wechat.close();
    await stack.stop();
  });
  beforeEach(() => kit.configure(wechat.settings()));

  const outTradeNo = (id: string) => id.replaceAll('-', '');
  const openOrder = async (credits: number) => {
    const user = await createTestUser(stack);
    const bundle = await kit.createBundle({ credits, price_cents: 990 });
    const answer = await kit.order(user, { bundle_id: bundle.id });
    expect(answer.status).toBe(201);
    return { user, id: (answer.body as { id: string }).id };
  };
  /** Polls the payment until it leaves `pending` (the workflow's first look is 5 s after the order). */
  const settled = async (user: TestUser, id: string) => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const payment = (await kit.api('GET', `/api/v1/payments/${id}`, user)).body;
      if (payment.status !== 'pending' || Date.now() > deadline) return payment;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  it('credits a payment whose notification never arrives, from the query', async () => {
    const { user, id } = await openOrder(120);
    wechat.pay(outTradeNo(id));
    expect(await settled(user, id)).toMatchObject({ status: 'paid' });
    expect(await balanceOf(stack, user.id)).toBe(120);
    expect(await kit.ledgerOf(id)).toHaveLength(1);
  });

  it('closes an expired order at the provider and here; a late notification credits nothing and flags it', async () => {
    const { user, id } = await openOrder(50);
    await stack.database.db.query(`UPDATE content.payments SET expires_at = now() WHERE id = :id`, {
      replacements: { id },
    });
    expect(await settled(user, id)).toMatchObject({ status: 'closed', needs_refund: false });
    expect(wechat.orders.get(outTradeNo(id))!.trade_state).toBe('CLOSED');
    // The payer paid anyway (a provider that settles late): taken, credited nothing, flagged.
    wechat.pay(outTradeNo(id));
    expect((await wechat.send(wechat.notification(outTradeNo(id)))).status).toBe(204);
    expect((await kit.api('GET', `/api/v1/payments/${id}`, user)).body).toMatchObject({
      status: 'closed',
      needs_refund: true,
    });
    expect(await balanceOf(stack, user.id)).toBe(0);
    expect(await kit.ledgerOf(id)).toEqual([]);
    const flagged = await kit.api('GET', '/api/v1/payments?scope=all&needs_refund=true', admin);
    expect(flagged.body.map((row: { id: string }) => row.id)).toContain(id);
  });
});

/** A worker process killed with SIGKILL in the middle of a reconciliation step. */
describe('payments: reconciliation survives a killed worker', () => {
  let stack: TestStack;
  let admin: TestUser;
  let wechat: FakeWechatPay;
  let worker: MuseProcess | undefined;
  beforeAll(async () => {
    stack = await startTestStack();
    admin = await createTestUser(stack, { admin: true });
    wechat = await startFakeWechatPay();
  });
  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await wechat.close();
    await stack.stop();
  });

  it('credits once when the worker dies during the query and another worker takes over', async () => {
    const kit = paymentKit(stack, admin);
    await kit.configure(wechat.settings());
    worker = startMuseServer(['worker'], {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: stack.config.DATABASE_URL!,
      TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: stack.config.TEMPORAL_TASK_QUEUE,
      MUSE_SECRETS_KEY: stack.config.MUSE_SECRETS_KEY!,
      MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
      MUSE_DATA_DIR: stack.config.MUSE_DATA_DIR,
    });
    await worker.waitForOutput(/worker running/, READY_TIMEOUT_MS);
    const release = wechat.holdQueries();
    const user = await createTestUser(stack);
    const bundle = await kit.createBundle({ credits: 90 });
    const { id } = (await kit.order(user, { bundle_id: bundle.id })).body as { id: string };
    const deadline = Date.now() + 60_000;
    while (wechat.queries === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(wechat.queries).toBeGreaterThan(0);
    worker.child.kill('SIGKILL');
    await worker.exited();
    wechat.pay(id.replaceAll('-', ''));
    release();
    await stack.startWorker();
    const settledBy = Date.now() + 120_000;
    let payment = (await kit.api('GET', `/api/v1/payments/${id}`, user)).body;
    while (payment.status === 'pending' && Date.now() < settledBy) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      payment = (await kit.api('GET', `/api/v1/payments/${id}`, user)).body;
    }
    expect(payment).toMatchObject({ status: 'paid' });
    expect(await balanceOf(stack, user.id)).toBe(90);
    expect(await kit.ledgerOf(id)).toHaveLength(1);
  }, 240_000);
});
