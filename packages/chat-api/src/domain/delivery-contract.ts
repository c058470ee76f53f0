/**
 * What the messaging API and the delivery workflow agree on. Imported by the workflow bundle
 * (Temporal's sandbox), so this module imports nothing.
 */
export const SCHEDULED_MESSAGE_WORKFLOW = 'scheduledMessageWorkflow';
export const RESCHEDULE_SIGNAL = 'reschedule';

/** One workflow per scheduled message; starting or signalling it twice reaches the same one. */
export const scheduledMessageWorkflowId = (scheduledMessageId: number) =>
  `scheduled-message-${scheduledMessageId}`;

/** When to deliver, as of the edit numbered `version` (edits of one message are numbered in commit order). */
export interface DeliveryPlan {
  version: number;
  deliverAtMs: number;
}

export type DeliveryOutcome =
  | { status: 'delivered'; messageId: number }
  | { status: 'failed'; reason: string }
  /** Deleted, or already delivered by an earlier attempt. */
  | { status: 'gone' }
  /** Not due: its time moved later than the workflow knew. */
  | { status: 'pending'; plan: DeliveryPlan };
