import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import {
  BOT_UNREACHABLE,
  OUTGOING_WEBHOOK_ATTEMPTS,
  type WebhookOptions,
  type WebhookOutcome,
} from '@muse/chat-api/outgoing-webhook-contract';
import type { OutgoingWebhookActivities } from '../activities/outgoing-webhooks.ts';

/** An attempt's time beyond the bot server's: the trigger's reads and the reply's transaction. */
const ATTEMPT_MARGIN_SECONDS = 10;

/** The failure notices: one short database transaction, retried until the database answers. */
const { reportUnreachableBot } = proxyLocalActivities<OutgoingWebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/**
 * One outgoing-webhook trigger (a bot mentioned or sent a direct message): call the bot's
 * server and post its answer as the bot's reply. After the last failed attempt, "Failure! Bot
 * is unavailable" where it was asked and the reason to the bot's owner, as Zulip does. The
 * domain step finishes the trigger exactly once, whatever is repeated.
 */
export async function outgoingWebhookWorkflow(
  triggerId: number,
  options: WebhookOptions = { timeoutSeconds: 10 },
): Promise<WebhookOutcome> {
  /**
   * The call to the bot server: an ordinary activity (it may wait on the network for its whole
   * timeout), retried with back-off — Zulip's three retries — when the server cannot be reached,
   * or when the worker making it dies (the attempt times out and another worker repeats it).
   */
  const { callOutgoingWebhook } = proxyActivities<OutgoingWebhookActivities>({
    startToCloseTimeout: `${options.timeoutSeconds + ATTEMPT_MARGIN_SECONDS} seconds`,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: OUTGOING_WEBHOOK_ATTEMPTS,
    },
  });
  try {
    return await callOutgoingWebhook(triggerId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    const reason =
      cause instanceof ApplicationFailure && cause.type === BOT_UNREACHABLE
        ? cause.message
        : 'The request to the bot server did not complete.';
    return reportUnreachableBot(triggerId, reason);
  }
}
