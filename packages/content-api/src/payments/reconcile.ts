import type { Client as TemporalClient } from '@temporalio/client';
import { taskQueueOf, type Config } from '@muse/core';
import { providerAdapter, type PaymentsDeps } from './config.ts';
import { closePending, failPending, findPayment, outTradeNoOf, settlePaid } from './transitions.ts';
import {
  PAYMENT_REFUND_WORKFLOW,
  PAYMENT_WORKFLOW,
  paymentRefundWorkflowId,
  paymentWorkflowId,
  type PaymentTiming,
  type ReconcileOutcome,
} from './workflow-contract.ts';
import { ProviderCallError, type ProviderName } from './providers/types.ts';

/**
 * One step of a payment's reconciliation (run by the workflow until it answers `settled`): a
 * pending payment is looked up at the provider — paid there settles it (a lost notification),
 * closed or failed there closes it here; past its expiry it is closed at the provider first, then
 * here, so a payment closed here can no longer be paid there. Every step is safe to repeat: a
 * worker killed at any point leaves a state the next attempt completes the same way.
 */
export async function reconcilePayment(deps: PaymentsDeps, paymentId: string): Promise<ReconcileOutcome> {
  const payment = await findPayment(deps.db, paymentId);
  if (!payment || payment.status !== 'pending' || payment.provider === 'manual') return { state: 'settled' };
  const provider = payment.provider as ProviderName;
  const adapter = await providerAdapter(deps, provider);
  const outTradeNo = outTradeNoOf(payment.id);
  const remote = await adapter.query(outTradeNo);
  if (remote.state === 'paid') {
    await settlePaid(deps.db, deps.logger, provider, remote);
    return { state: 'settled' };
  }
  if (remote.state === 'closed') await closePending(deps.db, payment.id, 'closed at the provider');
  if (remote.state === 'failed') await failPending(deps.db, payment.id, 'failed at the provider');
  if (remote.state !== 'pending') return { state: 'settled' };
  const secondsToExpiry = Math.ceil((new Date(payment.expires_at!).getTime() - Date.now()) / 1000);
  if (secondsToExpiry > 0) return { state: 'pending', secondsToExpiry };
  try {
    await adapter.close(outTradeNo);
  } catch (error) {
    // Refused because it was paid meanwhile: the next step's query settles it.
    if (error instanceof ProviderCallError) return { state: 'pending', secondsToExpiry: 0 };
    throw error;
  }
  if (await closePending(deps.db, payment.id, 'expired'))
    deps.logger.info({ paymentId }, 'payment: expired unpaid and closed');
  return { state: 'settled' };
}

type WorkflowDeps = { temporal: TemporalClient; config: Config };

/** Starts the payment's workflow; already started is fine. */
export function startPaymentWorkflow(deps: WorkflowDeps, paymentId: string): Promise<void> {
  return startOnce(deps, PAYMENT_WORKFLOW, paymentWorkflowId(paymentId), paymentId);
}

/** The workflows' pauses, from this process's configuration (the sandbox reads none). */
export function paymentTiming(config: Config): PaymentTiming {
  return {
    providerTimeoutMs: config.MUSE_PAYMENT_PROVIDER_TIMEOUT_MS,
    reconcileMaxWaitMs: config.MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS,
    refundRetryMaxMs: config.MUSE_PAYMENT_REFUND_RETRY_MAX_MS,
  };
}

/** Starts the refund's workflow (it asks the provider again if the first call got no answer). */
export function startRefundWorkflow(deps: WorkflowDeps, refundId: string): Promise<void> {
  return startOnce(deps, PAYMENT_REFUND_WORKFLOW, paymentRefundWorkflowId(refundId), refundId);
}

async function startOnce(
  deps: WorkflowDeps,
  workflow: string,
  workflowId: string,
  arg: string,
): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + deps.config.MUSE_TEMPORAL_CALL_TIMEOUT_MS, () =>
      deps.temporal.workflow.start(workflow, {
        taskQueue: taskQueueOf(deps.config, 'payments'),
        workflowId,
        args: [arg, paymentTiming(deps.config)],
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
  }
}
