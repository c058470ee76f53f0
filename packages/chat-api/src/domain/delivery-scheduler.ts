import { taskQueueOf, type Config, type Logger } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { JsonableError } from './errors.ts';
import {
  RESCHEDULE_SIGNAL,
  SCHEDULED_MESSAGE_WORKFLOW,
  scheduledMessageWorkflowId,
  type DeliveryOptions,
  type DeliveryPlan,
} from './delivery-contract.ts';
import type { DeliveryScheduler } from './actions/scheduled-messages.ts';

/**
 * Deliveries on Temporal: one workflow per scheduled message, its id derived from the message.
 * signalWithStart reaches the running workflow, or starts a new one when none runs (a new
 * message, or a failed one given a new time).
 */
export function temporalScheduler(
  temporal: TemporalClient,
  config: Config,
  logger: Logger,
): DeliveryScheduler {
  const options: DeliveryOptions = {
    wakeEarlyMs: config.MUSE_DELIVERY_WAKE_EARLY_SECONDS * 1000,
    heartbeatTimeoutMs: config.MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS,
  };
  return {
    async schedule(id: number, plan: DeliveryPlan) {
      try {
        await temporal.withDeadline(Date.now() + config.MUSE_TEMPORAL_CALL_TIMEOUT_MS, () =>
          temporal.workflow.signalWithStart(SCHEDULED_MESSAGE_WORKFLOW, {
            taskQueue: taskQueueOf(config, 'delivery'),
            workflowId: scheduledMessageWorkflowId(config.TEMPORAL_TASK_QUEUE, id),
            args: [id, plan, options],
            signal: RESCHEDULE_SIGNAL,
            signalArgs: [plan],
          }),
        );
      } catch (error) {
        logger.error({ err: error, scheduledMessageId: id }, 'could not schedule the delivery');
        throw new JsonableError('The message scheduler is unavailable; try again', { status: 503 });
      }
    },
    async cancel(id: number) {
      try {
        await temporal.withDeadline(Date.now() + config.MUSE_TEMPORAL_CALL_TIMEOUT_MS, () =>
          temporal.workflow.getHandle(scheduledMessageWorkflowId(config.TEMPORAL_TASK_QUEUE, id)).cancel(),
        );
      } catch (error) {
        // Finished already, or Temporal is away: the workflow would find the message gone anyway.
        if ((error as Error).name !== 'WorkflowNotFoundError')
          logger.warn({ err: error, scheduledMessageId: id }, 'could not cancel a scheduled delivery');
      }
    },
  };
}
