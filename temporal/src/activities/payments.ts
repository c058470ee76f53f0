import type { Config, Logger, OutboundFetch, SecretBox, Sequelize } from '@muse/core';
import { reconcilePayment } from '@muse/content-api/workflow-steps';

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
  return {
    reconcilePayment: (paymentId: string) =>
      reconcilePayment(
        {
          db: deps.db,
          logger: deps.logger,
          config: deps.config,
          outbound: deps.fetch,
          secrets: deps.secrets,
        },
        paymentId,
      ),
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
