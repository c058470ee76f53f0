import {
  condition,
  defineSignal,
  isCancellation,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import { RESCHEDULE_SIGNAL, type DeliveryOutcome, type DeliveryPlan } from '@muse/chat-api/delivery-contract';
import type { ScheduledMessageActivities } from '../activities/scheduled-messages.ts';

export const rescheduleSignal = defineSignal<[DeliveryPlan]>(RESCHEDULE_SIGNAL);

/**
 * One short database transaction, run as a local activity (in the worker that runs the
 * workflow task: no round trip through an activity queue, which is most of the delay at the
 * time). Retried until the database answers; a retry after a crash finds the message delivered.
 */
const { deliverScheduledMessage } = proxyLocalActivities<ScheduledMessageActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/**
 * The delivery of one scheduled message: a durable timer until its time, moved by
 * `reschedule` signals (each edit sends its numbered plan; the newest wins), ended by
 * cancellation (deletion). At the time, one activity sends it through the messaging API's
 * own send path, or marks it failed; the database decides, so a stale timer never sends early
 * and a repeated attempt never sends twice.
 */
export async function scheduledMessageWorkflow(
  scheduledMessageId: number,
  initial: DeliveryPlan,
): Promise<DeliveryOutcome['status'] | 'cancelled'> {
  let plan = initial;
  const consider = (next: DeliveryPlan) => {
    if (next.version >= plan.version) plan = next;
  };
  setHandler(rescheduleSignal, consider);
  try {
    for (;;) {
      const waitingFor = plan;
      const moved = await condition(
        () => plan !== waitingFor,
        Math.max(1, waitingFor.deliverAtMs - Date.now()),
      );
      if (moved) continue;
      const outcome = await deliverScheduledMessage(scheduledMessageId);
      if (outcome.status === 'pending') {
        consider(outcome.plan);
        continue;
      }
      // A new time given while the attempt failed is a new schedule for this same workflow.
      if (outcome.status === 'failed' && plan !== waitingFor) continue;
      return outcome.status;
    }
  } catch (error) {
    if (isCancellation(error)) return 'cancelled';
    throw error;
  }
}
