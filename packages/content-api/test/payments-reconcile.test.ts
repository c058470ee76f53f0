import { QueryTypes } from 'sequelize';
import { afterAll, describe, expect, it } from 'vitest';
import { balanceOf, createTestUser, type TestUser } from '@muse/test-support/content';
import { outTradeNo, paymentSuite } from '@muse/test-support/payments';
import { startFakeWechatPay } from '@muse/test-support/fakes/wechat-pay';
import { READY_TIMEOUT_MS, startMuseServer, type MuseProcess } from '@muse/test-support/processes';
import { workerProcessEnv } from '@muse/test-support/stack';

/**
 * The workflows' pauses, shortened through their configuration (production's in brackets): the
 * first look at an order 1 s after it (5 s) and its retries 1 s apart; a provider call given up
 * after 3 s (30 s), so a killed worker's step is retried after 2 × 3 s + 5 s (65 s) and a refund's
 * first look comes 3 s + 5 s after its request (35 s); a refund's retries 1 s apart (from 10 s).
 */
const SHORT_PAUSES = {
  MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS: '1000',
  MUSE_PAYMENT_REFUND_RETRY_MAX_MS: '1000',
  MUSE_PAYMENT_PROVIDER_TIMEOUT_MS: '3000',
};

/** The payment workflow on a real Temporal worker: lost notifications and expiry. */
describe('payments: reconciliation workflow', () => {
  const suite = paymentSuite(startFakeWechatPay, { worker: true, env: SHORT_PAUSES });
  const openOrder = async (credits: number) => {
    const { user, order } = await suite.openOrder(credits);
    return { user, id: order.id };
  };
  /** Polls the payment until it leaves `pending` (the workflow's first look is 1 s after the order). */
  const settled = async (user: TestUser, id: string) => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const payment = (await suite.kit.api('GET', `/api/v1/payments/${id}`, user)).body;
      if (payment.status !== 'pending' || Date.now() > deadline) return payment;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  it('credits a payment whose notification never arrives, from the query', async () => {
    const { user, id } = await openOrder(120);
    suite.provider.pay(outTradeNo(id));
    expect(await settled(user, id)).toMatchObject({ status: 'paid' });
    expect(await balanceOf(suite.stack, user.id)).toBe(120);
    expect(await suite.kit.ledgerOf(id)).toHaveLength(1);
  });

  it('closes an expired order at the provider and here; a late notification credits nothing and flags it', async () => {
    const { user, id } = await openOrder(50);
    await suite.stack.database.db.query(`UPDATE content.payments SET expires_at = now() WHERE id = :id`, {
      replacements: { id },
    });
    expect(await settled(user, id)).toMatchObject({ status: 'closed', needs_refund: false });
    expect(suite.provider.orders.get(outTradeNo(id))!.trade_state).toBe('CLOSED');
    // The payer paid anyway (a provider that settles late): taken, credited nothing, flagged.
    suite.provider.pay(outTradeNo(id));
    expect((await suite.provider.send(suite.provider.notification(outTradeNo(id)))).status).toBe(204);
    expect((await suite.kit.api('GET', `/api/v1/payments/${id}`, user)).body).toMatchObject({
      status: 'closed',
      needs_refund: true,
    });
    expect(await balanceOf(suite.stack, user.id)).toBe(0);
    expect(await suite.kit.ledgerOf(id)).toEqual([]);
    const flagged = await suite.kit.api('GET', '/api/v1/payments?scope=all&needs_refund=true', suite.admin);
    expect(flagged.body.map((row: { id: string }) => row.id)).toContain(id);
  });
});

/**
 * A worker process killed with SIGKILL in the middle of a reconciliation step. This suite and the
 * next wait seconds on the workflows' timeouts, each on a stack and provider of its own: they wait
 * at once.
 */
describe('payments: reconciliation survives a killed worker', { concurrent: true }, () => {
  const suite = paymentSuite(startFakeWechatPay, { env: SHORT_PAUSES });
  let worker: MuseProcess | undefined;
  afterAll(() => worker?.child.kill('SIGKILL'));

  it('credits once when the worker dies during the query and another worker takes over', async () => {
    const { stack, kit, provider: wechat } = suite;
    worker = startMuseServer(['worker'], { ...workerProcessEnv(stack), ...SHORT_PAUSES });
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

/** A refund whose provider call got no answer is not lost: its workflow asks again. */
describe('payments: refunds the provider did not answer', { concurrent: true }, () => {
  const suite = paymentSuite(startFakeWechatPay, { worker: true, env: SHORT_PAUSES });

  const refundRow = async (paymentId: string) => {
    const [row] = await suite.stack.database.db.query<{ id: string; status: string }>(
      'SELECT id, status FROM content.payment_refunds WHERE payment_id = :paymentId',
      { replacements: { paymentId }, type: QueryTypes.SELECT },
    );
    return row;
  };

  // The test's own `expect`: expect.poll needs to know its test while the other suite's runs.
  it('keeps the refund pending, credits taken, and completes it once the provider answers', async ({
    expect,
  }) => {
    const { user, order } = await suite.openOrder(100, 990);
    const no = outTradeNo(order.id);
    suite.provider.pay(no);
    expect((await suite.provider.send(suite.provider.notification(no))).status).toBe(204);
    // The first refund request is made at WeChat Pay, but its answer is lost; so is the retry's.
    suite.provider.loseRefundAnswers(2);
    const answer = await suite.kit.api('POST', `/api/v1/payments/${order.id}/refunds`, suite.admin, {
      amount_cents: 400,
    });
    expect(answer.status).toBe(502);
    expect(answer.body.message).toContain('is asked again until the provider answers');
    expect(await refundRow(order.id)).toMatchObject({ status: 'pending' });
    expect(await balanceOf(suite.stack, user.id)).toBe(60);
    // The workflow asks again (8 s, then 1 s after the lost retry) under the same refund number:
    // WeChat Pay answers the refund it already made, and it is complete, made once.
    await expect
      .poll(async () => (await refundRow(order.id))?.status, { timeout: 150_000, interval: 1000 })
      .toBe('succeeded');
    expect(suite.provider.refunds.filter((refund) => refund.out_trade_no === no)).toMatchObject([
      { refund: 400 },
    ]);
    expect((await suite.kit.api('GET', `/api/v1/payments/${order.id}`, user)).body).toMatchObject({
      status: 'paid',
      refunded_cents: 400,
      refunded_credits: 40,
    });
    expect(await balanceOf(suite.stack, user.id)).toBe(60);
    expect((await suite.kit.ledgerOf(order.id)).map((entry) => entry.amount)).toEqual([100, -40]);
  }, 200_000);
});
