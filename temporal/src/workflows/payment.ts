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
