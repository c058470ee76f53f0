import type { Config, Logger, OutboundFetch, SecretBox, Sequelize } from '@muse/core';
import { reconcilePayment, settleRefund } from '@muse/content-api/workflow-steps';

export interface PaymentActivityDeps {
  db: Sequelize;
  logger: Logger;
  config: Config;
  /** The outbound client (address policy) the provider is called through. */
  fetch: OutboundFetch;
  /** Opens the payment provider's sealed secrets. */
  secrets: SecretBox;
}

/** Thin on purpose: the content service's payments module owns the step and the transitions. */
export function createPaymentActivities(deps: PaymentActivityDeps) {
  const steps = {
    db: deps.db,
    logger: deps.logger,
    config: deps.config,
    outbound: deps.fetch,
    secrets: deps.secrets,
  };
  return {
    reconcilePayment: (paymentId: string) => reconcilePayment(steps, paymentId),
    /** Throws while the provider does not answer, so the activity's retries ask again. */
    settleRefund: async (refundId: string): Promise<string> => (await settleRefund(steps, refundId)).status,
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
