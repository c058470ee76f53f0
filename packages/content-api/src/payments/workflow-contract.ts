// The payment reconciliation workflow's contract, shared by the content API (which starts it) and
// temporal/ (which runs it). No imports: the workflow bundle includes this file.

export const PAYMENT_WORKFLOW = 'paymentReconciliationWorkflow';

/** One workflow per payment: starting it twice is a no-op. */
export const paymentWorkflowId = (paymentId: string): string => `payment-${paymentId}`;

/** What one reconciliation step found: nothing more to do, or still pending for this long. */
export type ReconcileOutcome = { state: 'settled' } | { state: 'pending'; secondsToExpiry: number };

export const PAYMENT_REFUND_WORKFLOW = 'paymentRefundWorkflow';

/** One workflow per refund: asks the provider until it answers. */
export const paymentRefundWorkflowId = (refundId: string): string => `payment-refund-${refundId}`;

/**
 * The pauses of both workflows, from the starter's configuration (MUSE_PAYMENT_*): the sandbox
 * reads no environment, and a workflow keeps the pauses it was started with. Absent in
 * workflows started before they were configurable: the defaults then apply.
 */
export interface PaymentTiming {
  /** MUSE_PAYMENT_PROVIDER_TIMEOUT_MS: the longest one provider call takes. */
  providerTimeoutMs: number;
  /** MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS: the longest pause between looks at a pending order. */
  reconcileMaxWaitMs: number;
  /** MUSE_PAYMENT_REFUND_RETRY_MAX_MS: the longest pause between a refund's attempts. */
  refundRetryMaxMs: number;
}

export const DEFAULT_PAYMENT_TIMING: PaymentTiming = {
  providerTimeoutMs: 30_000,
  reconcileMaxWaitMs: 60_000,
  refundRetryMaxMs: 600_000,
};
