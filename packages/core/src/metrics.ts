import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sequelize } from 'sequelize';

/**
 * The platform's own metrics, in one registry per process that every /metrics of the process
 * serves (createMetricsRegistry). One catalogue, so the chart's dashboard and alerts
 * (charts/muse/files/) name metrics from one place; test/metrics.test.ts checks they all exist.
 * Domain code records into them; labels are bounded (kinds, statuses, generator names, never ids).
 */
const shared = new Registry();

export const platformMetrics = {
  generationTasks: new Counter({
    name: 'muse_generation_tasks_total',
    help: 'Generation tasks that reached a status (processing, completed, failed), by kind',
    labelNames: ['kind', 'status'] as const,
    registers: [shared],
  }),
  upstreamDuration: new Histogram({
    name: 'muse_upstream_request_duration_seconds',
    help: 'Calls to generation upstreams by generator, operation (submit, poll, download) and outcome',
    labelNames: ['generator', 'operation', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [shared],
  }),
  upstreamErrors: new Counter({
    name: 'muse_upstream_errors_total',
    help: 'Failed calls to generation upstreams by generator and kind (transient, rate_limited, timeout, permanent)',
    labelNames: ['generator', 'kind'] as const,
    registers: [shared],
  }),
  refunds: new Counter({
    name: 'muse_generation_refunds_total',
    help: 'Charges of failed generation tasks refunded',
    registers: [shared],
  }),
  refundedCredits: new Counter({
    name: 'muse_generation_refunded_credits_total',
    help: 'Credits given back by those refunds',
    registers: [shared],
  }),
  scheduledLateness: new Histogram({
    name: 'muse_scheduled_message_lateness_seconds',
    help: 'How long after its deliver_at a scheduled message was sent',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [shared],
  }),
  workflows: new Counter({
    name: 'muse_workflows_total',
    help: 'Workflow executions that ended, by workflow type and outcome (completed, failed)',
    labelNames: ['workflow', 'outcome'] as const,
    registers: [shared],
  }),
  reconcilerBacklog: new Gauge({
    name: 'muse_reconciler_backlog',
    help: 'Items a periodic reconciler found waiting at its last run (stranded_generations: tasks pending over a minute)',
    labelNames: ['reconciler'] as const,
    registers: [shared],
  }),
};

// Every pool of the process (tests open several), read when /metrics is scraped.
const pools = new Set<WeakRef<Sequelize>>();

interface PoolState {
  size: number;
  available: number;
  using: number;
  waiting: number;
  maxSize: number;
}

function poolTotals(): PoolState {
  const totals: PoolState = { size: 0, available: 0, using: 0, waiting: 0, maxSize: 0 };
  for (const ref of pools) {
    const db = ref.deref();
    if (!db) {
      pools.delete(ref);
      continue;
    }
    const pool = (db.connectionManager as unknown as { pool?: PoolState }).pool;
    if (!pool) continue;
    for (const key of Object.keys(totals) as (keyof PoolState)[]) totals[key] += pool[key] ?? 0;
  }
  return totals;
}

new Gauge({
  name: 'muse_db_pool_connections',
  help: 'Database pool connections by state (used, idle), summed over the pools of the process',
  labelNames: ['state'] as const,
  registers: [shared],
  collect() {
    const pool = poolTotals();
    this.set({ state: 'used' }, pool.using);
    this.set({ state: 'idle' }, pool.available);
  },
});
new Gauge({
  name: 'muse_db_pool_max',
  help: 'Most connections the pools may open',
  registers: [shared],
  collect() {
    this.set(poolTotals().maxSize);
  },
});
new Gauge({
  name: 'muse_db_pool_waiting',
  help: 'Callers waiting for a pooled connection',
  registers: [shared],
  collect() {
    this.set(poolTotals().waiting);
  },
});

/** Counts the pool of `db` in the muse_db_pool_* gauges. */
export function watchPool(db: Sequelize): void {
  pools.add(new WeakRef(db));
}

/** Times one upstream call into muse_upstream_* (the error's `kind`, when it has one, labels it). */
export async function timeUpstream<T>(
  generator: string,
  operation: string,
  call: () => Promise<T>,
): Promise<T> {
  const end = platformMetrics.upstreamDuration.startTimer({ generator, operation });
  try {
    const result = await call();
    end({ outcome: 'ok' });
    return result;
  } catch (error) {
    end({ outcome: 'error' });
    const kind = (error as { kind?: unknown }).kind;
    platformMetrics.upstreamErrors.inc({ generator, kind: typeof kind === 'string' ? kind : 'error' });
    throw error;
  }
}

/** Process metrics (CPU, memory, event loop) and the platform's, labelled with the service. */
export function createMetricsRegistry(service: string): Registry {
  const registry = Registry.merge([new Registry(), shared]);
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
