import { ApplicationFailure } from '@temporalio/activity';
import type { Config, Logger, OutboundFetch, Sequelize } from '@muse/core';
import { BOT_UNREACHABLE, type WebhookOutcome } from '@muse/chat-api/outgoing-webhook-contract';
import {
  BotUnreachableError,
  deliverOutgoingWebhook,
  reportUnreachableBot,
} from '@muse/chat-api/workflow-steps';

/**
 * Thin: the call, the reply and the once-only guard live in the messaging API's domain code. A
 * bot server that cannot be reached becomes a retryable failure of its own type, so the workflow
 * can tell "down" (report it) from anything else.
 */
export function createOutgoingWebhookActivities(deps: {
  db: Sequelize;
  config: Config;
  logger: Logger;
  fetch: OutboundFetch;
}) {
  return {
    async callOutgoingWebhook(triggerId: number): Promise<WebhookOutcome> {
      try {
        return await deliverOutgoingWebhook(deps, triggerId);
      } catch (error) {
        if (!(error instanceof BotUnreachableError)) throw error;
        deps.logger.info({ triggerId, reason: error.message }, 'outgoing webhook unreachable; retrying');
        throw ApplicationFailure.retryable(error.message, BOT_UNREACHABLE);
      }
    },
    reportUnreachableBot(triggerId: number, reason: string): Promise<WebhookOutcome> {
      return reportUnreachableBot(deps, triggerId, reason);
    },
  };
}

export type OutgoingWebhookActivities = ReturnType<typeof createOutgoingWebhookActivities>;
