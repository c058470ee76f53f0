import { proxyActivities, sleep } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments.ts';

const { reconcilePayment } = proxyActivities<PaymentActivities>({
  // A provider call is bounded by the outbound client; a step of a killed worker is retried after this.
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const FIRST_WAIT_SECONDS = 5;
const LONGEST_WAIT_SECONDS = 60;

/**
 * One per payment (id `payment-<id>`): while the payment is pending, asks the provider with a
 * growing pause (a notification may be lost), and closes it at its expiry. A notification that
 * settles the payment meanwhile makes the next step answer `settled`. The step is idempotent, so
 * a worker killed at any point only repeats it.
 */
export async function paymentReconciliationWorkflow(paymentId: string): Promise<void> {
  let wait = FIRST_WAIT_SECONDS;
  await sleep(wait * 1000);
  for (;;) {
    const outcome = await reconcilePayment(paymentId);
    if (outcome.state === 'settled') return;
    wait = Math.min(wait * 2, LONGEST_WAIT_SECONDS);
    await sleep(Math.max(1, Math.min(wait, outcome.secondsToExpiry)) * 1000);
  }
}

const { settleRefund } = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '45 seconds',
  // No attempt limit: a refund whose credits were taken back must reach the provider.
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/** Longer than a provider call may take (30 s), so the request's own attempt has ended first. */
const REFUND_FIRST_LOOK_SECONDS = 35;

/**
 * One per refund (id `payment-refund-<id>`), started before the API asks the provider: if that
 * call got an answer, the step finds the refund settled and ends; otherwise (no answer, or the
 * server died meanwhile) it asks again, under the same refund number, until the provider answers.
 */
export async function paymentRefundWorkflow(refundId: string): Promise<void> {
  await sleep(REFUND_FIRST_LOOK_SECONDS * 1000);
  await settleRefund(refundId);
}
