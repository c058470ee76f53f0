/**
 * The kinds of durable work. Each has its own Temporal task queue, so a worker serves each with
 * its own slots: a backlog of one (a burst of generations) cannot delay another (scheduled
 * messages due meanwhile, payment reconciliation).
 * - `generation`: generation tasks (minutes of upstream polling each);
 * - `delivery`: short deliveries users wait for: scheduled messages, character replies;
 * - `payments`: top-up reconciliation.
 */
export const WORKLOADS = ['generation', 'delivery', 'payments'] as const;
export type Workload = (typeof WORKLOADS)[number];

/**
 * The task queue of a workload. Generation keeps the base queue's own name: it carries the most
 * work, and workflows started before workloads had queues of their own finish there.
 */
export function taskQueueOf(config: { TEMPORAL_TASK_QUEUE: string }, workload: Workload): string {
  return workload === 'generation' ? config.TEMPORAL_TASK_QUEUE : `${config.TEMPORAL_TASK_QUEUE}-${workload}`;
}

/** The workloads a worker process serves: MUSE_WORKER_WORKLOADS, a comma-separated list or `all`. */
export function workloadsOf(config: { MUSE_WORKER_WORKLOADS: string }): Workload[] {
  const names = config.MUSE_WORKER_WORKLOADS.split(',').map((name) => name.trim());
  return names.includes('all') ? [...WORKLOADS] : WORKLOADS.filter((workload) => names.includes(workload));
}
