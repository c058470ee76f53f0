import type { Config, Logger, Sequelize } from '@muse/core';
import type { DeliveryOutcome } from '@muse/chat-api/delivery-contract';
import { createPushSender, deliverScheduledMessage, pushForMessage } from '@muse/chat-api/workflow-steps';

/**
 * Thin: the rules and the once-only guard live in the messaging API's domain code. A message
 * this attempt sent is pushed to offline recipients, as POST /messages does (best effort).
 */
export function createScheduledMessageActivities(deps: { db: Sequelize; config: Config; logger: Logger }) {
  const push = createPushSender(deps.config, deps.logger);
  return {
    deliverScheduledMessage(scheduledMessageId: number): Promise<DeliveryOutcome> {
      return deliverScheduledMessage(deps.db, deps.config, scheduledMessageId, async (sender, messageId) => {
        if (!push) return;
        await pushForMessage(sender, push, messageId, deps.logger).catch((error: unknown) =>
          deps.logger.warn({ err: error, messageId }, 'push notifications failed'),
        );
      });
    },
  };
}

export type ScheduledMessageActivities = ReturnType<typeof createScheduledMessageActivities>;
