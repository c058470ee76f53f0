import { Context } from '@temporalio/activity';
import type { Config, Sequelize } from '@muse/core';
import type { DeliveryOutcome } from '@muse/chat-api/delivery-contract';
import { deliverScheduledMessage, type DeliveryWait } from '@muse/chat-api/workflow-steps';
import { createDeliveryInstants } from './delivery-instants.ts';

/**
 * How often a waiting delivery heartbeats: Temporal sends at most one per 80% of the workflow's
 * heartbeat timeout (30 s by default), so more calls only cost this process; every 6 s still
 * rides out an event loop held up for 20 s. A shorter timeout is heartbeated five times per.
 */
const HEARTBEAT_EVERY_MS = 6_000;
/** A local activity started by a timer that fired a moment before the worker's clock says so waits that moment. */
const TIMER_SKEW_MS = 1_000;
/**
 * The longest an attempt that has sent holds its completion for the rest of its instant (see
 * delivery-instants.ts): long enough for a thousand sends on two cores. A hold also ends this
 * long before the attempt's start-to-close timeout, so that a hold never makes Temporal retry it.
 */
const HOLD_MAX_MS = 30_000;
const HOLD_MARGIN_MS = 10_000;

/**
 * Thin: the rules, the once-only guard and what a sent message starts after its commit (push,
 * outgoing webhooks) live in the messaging API's domain code.
 */
export function createScheduledMessageActivities(deps: { db: Sequelize; config: Config }) {
  const instants = createDeliveryInstants();
  const deliver = (scheduledMessageId: number, wait: DeliveryWait) =>
    deliverScheduledMessage(deps.db, deps.config, scheduledMessageId, wait);
  return {
    /** The local activity of workflows started before they woke early: run at the time. */
    deliverScheduledMessage(scheduledMessageId: number): Promise<DeliveryOutcome> {
      return deliver(scheduledMessageId, { untilMs: Date.now() + TIMER_SKEW_MS });
    },
    /**
     * Started up to `waitMs` before the time: waits for it here, holding an activity slot (not a
     * workflow task), heartbeating so that a dead worker's attempts are retried elsewhere, and
     * stopping when the attempt is cancelled (a new time, a deletion) or the worker shuts down.
     * Its outcome is then held until the rest of its instant is sent here (bounded); an attempt
     * that throws is not held, so that its retry comes at once.
     */
    async deliverScheduledMessageWhenDue(
      scheduledMessageId: number,
      waitMs: number,
    ): Promise<DeliveryOutcome> {
      const context = Context.current();
      const holdUntilMs = Date.now() + context.info.startToCloseTimeoutMs - HOLD_MARGIN_MS;
      const signal = context.cancellationSignal;
      const every = Math.min(HEARTBEAT_EVERY_MS, (context.info.heartbeatTimeoutMs ?? Infinity) / 5);
      const heartbeat = setInterval(() => context.heartbeat(), every);
      const attempt = instants.begin();
      try {
        const outcome = await deliver(scheduledMessageId, {
          untilMs: Date.now() + waitMs,
          signal,
          onDue: (ms) => attempt.dueAt(ms),
        }).finally(() => attempt.done());
        const holdMs = Math.min(HOLD_MAX_MS, holdUntilMs - Date.now());
        if (attempt.dueAtMs !== undefined && holdMs > 0)
          await instants.settled(attempt.dueAtMs, holdMs, signal);
        return outcome;
      } finally {
        clearInterval(heartbeat);
      }
    },
  };
}

export type ScheduledMessageActivities = ReturnType<typeof createScheduledMessageActivities>;
