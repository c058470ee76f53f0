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
