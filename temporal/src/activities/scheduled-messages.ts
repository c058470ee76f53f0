import type { Config, Sequelize } from '@muse/core';
import { deliverScheduledMessage, type DeliveryOutcome } from '@muse/chat-api';

/** Thin: the rules and the once-only guard live in the messaging API's domain code. */
export function createScheduledMessageActivities(deps: { db: Sequelize; config: Config }) {
  return {
    deliverScheduledMessage(scheduledMessageId: number): Promise<DeliveryOutcome> {
      return deliverScheduledMessage(deps.db, deps.config, scheduledMessageId);
    },
  };
}

export type ScheduledMessageActivities = ReturnType<typeof createScheduledMessageActivities>;
