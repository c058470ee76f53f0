import { taskQueueOf, type Config, type Logger, type Sequelize } from '@muse/core';
import { staleTriggerIds } from './lib/service-triggers.ts';
import { WorkflowExecutionAlreadyStartedError, type Client as TemporalClient } from '@temporalio/client';
import { OUTGOING_WEBHOOK_WORKFLOW, outgoingWebhookWorkflowId } from './outgoing-webhook-contract.ts';

/** Starts the delivery of outgoing-webhook triggers once their message has committed. */
export interface OutgoingWebhookStarter {
  start(triggerIds: number[]): Promise<void>;
}

/**
 * One workflow per trigger, its id derived from the trigger. A second start of the same trigger
 * (running or closed) is refused by Temporal, so a trigger is never delivered by two workflows.
 * When Temporal cannot be reached the message is sent all the same; the failure is logged.
 */
export function temporalWebhookStarter(
  temporal: TemporalClient,
  config: Config,
  logger: Logger,
): OutgoingWebhookStarter {
  return {
    async start(triggerIds) {
      for (const triggerId of triggerIds) {
        try {
          await temporal.withDeadline(Date.now() + config.MUSE_TEMPORAL_CALL_TIMEOUT_MS, () =>
            temporal.workflow.start(OUTGOING_WEBHOOK_WORKFLOW, {
              taskQueue: taskQueueOf(config, 'delivery'),
              workflowId: outgoingWebhookWorkflowId(config.TEMPORAL_TASK_QUEUE, triggerId),
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
              args: [triggerId, { timeoutSeconds: config.MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS }],
            }),
          );
        } catch (error) {
          if (error instanceof WorkflowExecutionAlreadyStartedError) continue;
          logger.error({ err: error, triggerId }, 'could not start an outgoing webhook delivery');
        }
      }
    },
  };
}

/**
 * Every MUSE_CHAT_WEBHOOK_SWEEP_MS, starts the workflows of triggers unfinished for that long
 * (those already started are refused by Temporal and left alone). Several API processes may
 * sweep at once. Returns the stop function.
 */
export function sweepStaleTriggers(
  starter: OutgoingWebhookStarter,
  db: Sequelize,
  config: Config,
  logger: Logger,
): () => void {
  const every = config.MUSE_CHAT_WEBHOOK_SWEEP_MS;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    staleTriggerIds(db, every)
      .then((ids) => starter.start(ids))
      .catch((error: unknown) => logger.warn({ err: error }, 'outgoing webhook sweep failed'))
      .finally(() => (running = false));
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}
