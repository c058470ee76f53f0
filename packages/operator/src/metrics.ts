import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The operator's metrics, in a registry of its own (served on the operator's metrics port). */
export function createOperatorMetrics(options: { processMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    reconciles: new Counter({
      name: 'muse_operator_reconciles_total',
      help: 'Reconciliations by kind and result (ready, not_ready, deleted, error)',
      labelNames: ['kind', 'result'] as const,
      registers: [registry],
    }),
    errors: new Counter({
      name: 'muse_operator_reconcile_errors_total',
      help: 'Failed reconciliations by kind and reason',
      labelNames: ['kind', 'reason'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'muse_operator_reconcile_duration_seconds',
      help: 'Time one reconciliation took',
      labelNames: ['kind'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    watchRestarts: new Counter({
      name: 'muse_operator_watch_restarts_total',
      help: 'Watch connections started again after an end or error',
      labelNames: ['resource'] as const,
      registers: [registry],
    }),
    leader: new Gauge({
      name: 'muse_operator_leader',
      help: '1 while this process holds the leader Lease',
      registers: [registry],
    }),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;
