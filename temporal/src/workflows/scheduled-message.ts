import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  defineSignal,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  type RetryPolicy,
} from '@temporalio/workflow';
import {
  RESCHEDULE_SIGNAL,
  type DeliveryOptions,
  type DeliveryOutcome,
  type DeliveryPlan,
} from '@muse/chat-api/delivery-contract';
import type { ScheduledMessageActivities } from '../activities/scheduled-messages.ts';

export const rescheduleSignal = defineSignal<[DeliveryPlan]>(RESCHEDULE_SIGNAL);

/**
 * Workflows started since this change wake `wakeEarlyMs` before the time and hand the message
 * to a regular activity that waits for the instant in the worker; one started before replays
 * its history: a timer to the time, then the local activity.
 */
export const WAKE_EARLY = 'scheduled-delivery-wakes-early';

/** Retried until the database answers; a retry after a crash finds the message delivered. */
const retry: RetryPolicy = {
  initialInterval: '200 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '10 seconds',
};

/**
 * Before WAKE_EARLY: one short database transaction at the time, run as a local activity (in
 * the worker that runs the workflow task).
 */
const atTheTime = proxyLocalActivities<ScheduledMessageActivities>({
  startToCloseTimeout: '30 seconds',
  retry,
});

/**
 * A waiting attempt heartbeats (the binding, every few seconds): a worker that dies while its
 * deliveries wait has them retried elsewhere after this long, not after the whole window. Each
 * heartbeat Temporal records is a write (one per attempt per 80% of this), and a worker busy
 * with a thousand sends must not miss one: 15 s timed out 20 of 1,000 waiting attempts in a
 * loaded bench run (bench/README.md). The default of MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS, and the
 * timeout of workflows started before it was configurable. Not compared on replay (only the
 * activity's type and id are), so histories recorded with 15 s replay.
 */
const HEARTBEAT_TIMEOUT_MS = 30_000;
/** Time for the checks and the transaction once the wait is over, on a busy database. */
const WORK_MS = 120_000;
/** Slack for a timer that fires a little before the worker's clock says `deliverAtMs - wakeEarlyMs`. */
const CLOCK_SLACK_MS = 5_000;

/**
 * The delivery of one scheduled message: a durable timer until `wakeEarlyMs` before its time,
 * moved by `reschedule` signals (each edit sends its numbered plan; the newest wins), ended by
 * cancellation (deletion). Then one activity waits for the time in the worker and sends the
 * message through the messaging API's own send path, or marks it failed; the database decides,
 * so nothing is sent early or twice. A new plan while the activity waits cancels it and starts
 * over with the new time.
 */
export async function scheduledMessageWorkflow(
  scheduledMessageId: number,
  initial: DeliveryPlan,
  options: DeliveryOptions = { wakeEarlyMs: 0 },
): Promise<DeliveryOutcome['status'] | 'cancelled'> {
  let plan = initial;
  const consider = (next: DeliveryPlan) => {
    if (next.version >= plan.version) plan = next;
  };
  setHandler(rescheduleSignal, consider);
  const waitMs = options.wakeEarlyMs + CLOCK_SLACK_MS;
  const waiting = proxyActivities<ScheduledMessageActivities>({
    startToCloseTimeout: waitMs + WORK_MS,
    heartbeatTimeout: options.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS,
    retry,
    // A cancelled attempt may still be asleep; the workflow does not wait for it to notice.
    cancellationType: ActivityCancellationType.TRY_CANCEL,
  });
  /** The attempt's outcome, or undefined when the plan changed first (the attempt is cancelled). */
  const attempt = async (waitingFor: DeliveryPlan): Promise<DeliveryOutcome | undefined> => {
    const scope = new CancellationScope();
    const delivery = scope.run(() => waiting.deliverScheduledMessageWhenDue(scheduledMessageId, waitMs));
    const moved = condition(() => plan !== waitingFor).then(() => undefined);
    const outcome = await Promise.race([delivery, moved]);
    if (outcome === undefined) {
      delivery.catch(() => undefined);
      scope.cancel();
    }
    return outcome;
  };
  try {
    for (;;) {
      const waitingFor = plan;
      const early = patched(WAKE_EARLY);
      const wakeAtMs = waitingFor.deliverAtMs - (early ? options.wakeEarlyMs : 0);
      const moved = await condition(() => plan !== waitingFor, Math.max(1, wakeAtMs - Date.now()));
      if (moved) continue;
      const outcome = early
        ? await attempt(waitingFor)
        : await atTheTime.deliverScheduledMessage(scheduledMessageId);
      if (!outcome) continue;
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
