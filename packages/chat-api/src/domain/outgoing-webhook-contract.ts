/**
 * What the messaging API and the outgoing-webhook workflow agree on. Imported by the workflow
 * bundle (Temporal's sandbox), so this module imports nothing.
 */
export const OUTGOING_WEBHOOK_WORKFLOW = 'outgoingWebhookWorkflow';

/** One workflow per trigger (a bot and the message that mentioned or messaged it), per task queue. */
export const outgoingWebhookWorkflowId = (taskQueue: string, triggerId: number) =>
  `${taskQueue}/outgoing-webhook-${triggerId}`;

/** The failure type of a call that reached no bot server (connection refused, timeout): retried. */
export const BOT_UNREACHABLE = 'BotUnreachable';

/**
 * How the workflow runs, fixed when it starts (the messaging API's configuration): the bot
 * server's time to answer (MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS), which bounds each attempt.
 * Absent in workflows started before it was configurable: 10 s then.
 */
export interface WebhookOptions {
  timeoutSeconds: number;
}

/** Zulip's MAX_REQUEST_RETRIES: three retries after the first call, with back-off between them. */
export const OUTGOING_WEBHOOK_ATTEMPTS = 4;

export type WebhookOutcome =
  /** The bot server answered with content, posted as the bot's reply. */
  | 'replied'
  /** It answered and wanted no reply (`response_not_required`, or no content). */
  | 'no-reply'
  /** It answered with an error, or could not be reached: a failure notice was posted. */
  | 'failed'
  /** An earlier attempt finished it already (a retry after a crash), or it is gone. */
  | 'finished-before';
