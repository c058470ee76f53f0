import { proxyActivities, sleep } from '@temporalio/workflow';
import { DEFAULT_PAYMENT_TIMING, type PaymentTiming } from '@muse/content-api/payments-workflow';
import type { PaymentActivities } from '../activities/payments.ts';

const FIRST_LOOK_MS = 5_000;
/** A look's retries (the provider did not answer) start this soon. */
const FIRST_RETRY_MS = 2_000;

/**
 * One per payment (id `payment-<id>`): while the payment is pending, asks the provider with a
 * growing pause (a notification may be lost), and closes it at its expiry. A notification that
 * settles the payment meanwhile makes the next step answer `settled`. The step is idempotent, so
 * a worker killed at any point only repeats it. While the provider does not answer, the step is
 * retried with pauses growing to `reconcileMaxWaitMs`, however long the outage lasts.
 */
export async function paymentReconciliationWorkflow(
  paymentId: string,
  timing: PaymentTiming = DEFAULT_PAYMENT_TIMING,
): Promise<void> {
  const longest = timing.reconcileMaxWaitMs;
  const { reconcilePayment } = proxyActivities<PaymentActivities>({
    // A step makes two provider calls at most (a query, a close); one of a killed worker is retried after this.
    startToCloseTimeout: 2 * timing.providerTimeoutMs + 5_000,
    retry: {
      initialInterval: Math.min(FIRST_RETRY_MS, longest),
      backoffCoefficient: 2,
      maximumInterval: longest,
    },
  });
  let wait = Math.min(FIRST_LOOK_MS, longest);
  await sleep(wait);
  for (;;) {
    const outcome = await reconcilePayment(paymentId);
    if (outcome.state === 'settled') return;
    wait = Math.min(wait * 2, longest);
    // The next look after the pause, or at the expiry when sooner; but not within a second (unless
    // the pauses are configured shorter), so an order at its expiry is not asked about in a loop.
    const untilExpiry = outcome.secondsToExpiry * 1000;
    await sleep(Math.max(Math.min(1_000, wait), Math.min(wait, untilExpiry)));
  }
}

const FIRST_REFUND_RETRY_MS = 10_000;
/** The refund's first look waits for the request's own attempt (one provider call) to end. */
const REFUND_LOOK_MARGIN_MS = 5_000;

/**
 * One per refund (id `payment-refund-<id>`), started before the API asks the provider: if that
 * call got an answer, the step finds the refund settled and ends; otherwise (no answer, or the
 * server died meanwhile) it asks again, under the same refund number, until the provider answers.
 */
export async function paymentRefundWorkflow(
  refundId: string,
  timing: PaymentTiming = DEFAULT_PAYMENT_TIMING,
): Promise<void> {
  const longest = timing.refundRetryMaxMs;
  const { settleRefund } = proxyActivities<PaymentActivities>({
    startToCloseTimeout: timing.providerTimeoutMs + 15_000,
    // No attempt limit: a refund whose credits were taken back must reach the provider.
    retry: {
      initialInterval: Math.min(FIRST_REFUND_RETRY_MS, longest),
      backoffCoefficient: 2,
      maximumInterval: longest,
    },
  });
  await sleep(timing.providerTimeoutMs + REFUND_LOOK_MARGIN_MS);
  await settleRefund(refundId);
}
