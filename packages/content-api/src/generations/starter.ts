import { inCurrentTrace, taskQueueOf, type Config, type Logger, type Sequelize } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { GENERATION_WORKFLOW, workflowIdOf } from './contract.ts';
import { failGeneration } from './fail.ts';

/** Starts in flight at once: enough to keep Temporal busy, few enough not to queue gRPC calls. */
const CONCURRENT_STARTS = 8;

export interface StarterDeps {
  db: Sequelize;
  temporal: TemporalClient;
  config: Config;
  logger: Logger;
}

/**
 * Starts a task's workflow; its id is derived from the task, so starting twice is harmless
 * (false: it was already running).
 * The wait is bounded: if a start that timed out did reach Temporal after all, the workflow
 * finds its task failed (and refunded) by the caller and stops, so nothing is paid twice.
 */
export async function startGenerationWorkflow(deps: StarterDeps, taskId: string): Promise<boolean> {
  try {
    await deps.temporal.withDeadline(Date.now() + deps.config.MUSE_TEMPORAL_CALL_TIMEOUT_MS, () =>
      deps.temporal.workflow.start(GENERATION_WORKFLOW, {
        taskQueue: taskQueueOf(deps.config, 'generation'),
        workflowId: workflowIdOf(taskId),
        args: [taskId],
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
    return false;
  }
}

/**
 * Starts generation workflows off the request path. A task is committed, pending, before it is
 * handed here, so the generations table is the outbox: a start lost with its API process leaves
 * the task pending, and the reconciler (reconcile.ts) starts it. A few starts run at a time, so
 * a burst of submits does not become a burst of concurrent calls to Temporal.
 *
 * Only while Temporal answers: until a start has succeeded, and after one failed, `accepting`
 * is false and submits start their workflow themselves, so that a client hears 503 (and is
 * refunded at once) when the engine cannot be reached, as before.
 */
export class WorkflowStarter {
  /** Starts to make, each in the trace of the request that handed it over. */
  private readonly queue: (() => Promise<void>)[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private answering = false;
  private readonly deps: StarterDeps;

  constructor(deps: StarterDeps) {
    this.deps = deps;
  }

  get accepting(): boolean {
    return this.answering;
  }

  /** Records how a start made elsewhere (by a submit itself) went. */
  noteOutcome(started: boolean): void {
    this.answering = started;
  }

  enqueue(taskId: string): void {
    this.queue.push(inCurrentTrace(() => this.start(taskId)));
    this.pump();
  }

  /**
   * Resolves once every start handed over so far has been made (or failed and refunded). Called
   * at shutdown once the server takes no more submits, so a redeploy leaves no task waiting for
   * the reconciler.
   */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private pump(): void {
    while (this.inFlight.size < CONCURRENT_STARTS && this.queue.length > 0) {
      const started = this.queue.shift()!().finally(() => {
        this.inFlight.delete(started);
        this.pump();
      });
      this.inFlight.add(started);
    }
  }

  /** A task that cannot be started is failed and refunded: its client already has its 202. */
  private async start(taskId: string): Promise<void> {
    try {
      await startGenerationWorkflow(this.deps, taskId);
      this.answering = true;
    } catch (error) {
      this.answering = false;
      this.deps.logger.error({ err: error, taskId }, 'could not start the generation workflow; refunding');
      await failGeneration(this.deps.db, taskId, 'The task could not be queued; it was refunded', {
        refundDescription: 'Refund: the task could not be queued',
        kind: 'unavailable',
      }).catch((failure: unknown) =>
        // The task stays pending and charged; the reconciler starts it once Temporal answers.
        this.deps.logger.error({ err: failure, taskId }, 'could not refund an unstarted generation'),
      );
    }
  }
}
