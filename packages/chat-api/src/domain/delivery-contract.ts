/**
 * What the messaging API and the delivery workflow agree on. Imported by the workflow bundle
 * (Temporal's sandbox), so this module imports nothing.
 */
export const SCHEDULED_MESSAGE_WORKFLOW = 'scheduledMessageWorkflow';
export const RESCHEDULE_SIGNAL = 'reschedule';

/**
 * One workflow per scheduled message; starting or signalling it twice reaches the same one.
 * Message ids are only unique in one database, and deployments sharing a Temporal namespace
 * are told apart by their task queue (their workers must not take each other's work), so the
 * task queue is part of the id.
 */
export const scheduledMessageWorkflowId = (taskQueue: string, scheduledMessageId: number) =>
  `${taskQueue}/scheduled-message-${scheduledMessageId}`;

/** How the workflow runs, fixed when it starts (the messaging API's configuration). */
export interface DeliveryOptions {
  /**
   * How long before its time the workflow wakes and hands the message to a delivery attempt,
   * which waits for the instant in the worker: Temporal's work for a message (timer, workflow
   * task, activity start) is then done before it is due, not queued behind every other message
   * due at the same instant. 0: the attempt starts at the time.
   */
  wakeEarlyMs: number;
  /**
   * How long a waiting attempt may go without a heartbeat before Temporal retries it (its worker
   * died). Absent in workflows started before it was configurable: 30 s then.
   */
  heartbeatTimeoutMs?: number;
}

/** When to deliver, as of the edit numbered `version` (edits of one message are numbered in commit order). */
export interface DeliveryPlan {
  version: number;
  deliverAtMs: number;
}

export type DeliveryOutcome =
  /** Now, or by an earlier attempt (a retry reports the same message). */
  | { status: 'delivered'; messageId: number }
  | { status: 'failed'; reason: string }
  /** Deleted. */
  | { status: 'gone' }
  /** Not due: its time moved later than the workflow knew. */
  | { status: 'pending'; plan: DeliveryPlan };
