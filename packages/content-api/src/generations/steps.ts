import {
  ConflictError,
  createSecretBox,
  NotFoundError,
  platformMetrics,
  timeUpstream,
  type Config,
  type FileStorage,
  type Logger,
  type OutboundFetch,
  type Sequelize,
  one,
  rows,
} from '@muse/core';
import { adapterFor } from '../generators/adapters/registry.ts';
import { downloadBytes } from '../generators/adapters/http.ts';
import {
  UpstreamError,
  type AdapterContext,
  type UpstreamOutput,
  type UpstreamResult,
  type UpstreamTask,
} from '../generators/adapters/types.ts';
import { executionSettings } from '../generators/generators.ts';
import type { GenerationKind } from '../generators/parameters.ts';
import { createLinkSigner } from '../files/signed-links.ts';
import { noteRateLimited } from '../generators/health.ts';
import type { FailureKind, StepResult, StoredOutput, TaskPlan } from './contract.ts';
import { announceFileStatus, fileStatusEvents, type FileStatus, type FileStatusEvent } from './events.ts';
import { failGeneration } from './fail.ts';

export interface GenerationStepDeps {
  db: Sequelize;
  logger: Logger;
  config: Config;
  storage: FileStorage;
  /** How upstreams are called (the address policy of MUSE_OUTBOUND_ALLOW). */
  fetch: OutboundFetch;
}

interface TaskRow {
  id: string;
  generator: string;
  owner_id: string;
  generator_id: string;
  kind: GenerationKind;
  params: Record<string, unknown>;
  status: FileStatus;
  charge_id: string | null;
  file_ids: string[];
  type: string;
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

interface PlanRow {
  kind: GenerationKind;
  status: FileStatus;
  file_ids: string[];
  type: string;
  config: Record<string, unknown>;
  moved: boolean;
  /** The files moved to processing, to announce (null when none moved). */
  events: FileStatusEvent[] | null;
}

/**
 * The steps of a generation task, run by its workflow (temporal/src/workflows/generation.ts).
 * Each is idempotent, keyed by the task and its file ids: storage keys are the file ids, state
 * changes only move forward (a completed file is never touched again), and the refund is unique
 * per charge in the schema. So a retry, or a worker killed at any point and replaced, neither
 * charges nor refunds twice. Failures are domain errors: UpstreamError from the upstream (its
 * kind tells whether a retry can help), NotFoundError for a task that does not exist.
 */
export function createGenerationSteps(deps: GenerationStepDeps) {
  const { db, storage } = deps;
  const secretBox = createSecretBox(deps.config.MUSE_SECRETS_KEY);
  const links = deps.config.MUSE_JWT_SECRET
    ? createLinkSigner(deps.config.MUSE_JWT_SECRET, deps.config.MUSE_DOWNLOAD_URL_TTL_SECONDS)
    : undefined;

  const loadTask = async (taskId: string): Promise<TaskRow> => {
    const row = await one<TaskRow>(
      db,
      `SELECT g.id, r.name AS generator, g.owner_id, g.generator_id, g.kind, g.params, g.status, g.charge_id, g.file_ids, r.type, r.config, r.secrets
         FROM content.generations g JOIN content.generators r ON r.id = g.generator_id
        WHERE g.id = :taskId`,
      { taskId },
    );
    if (!row) throw new NotFoundError(`No generation task ${taskId}`);
    return row;
  };

  const upstreamTask = (task: TaskRow): UpstreamTask => {
    const { generator_id: _generator, ...params } = task.params;
    const base = deps.config.MUSE_PUBLIC_URL?.replace(/\/+$/, '');
    const references = Array.isArray(params.reference_file_ids)
      ? (params.reference_file_ids as string[])
      : [];
    return {
      taskId: task.id,
      kind: task.kind,
      params,
      count: task.file_ids.length,
      config: task.config,
      secrets: secretBox.openValues(task.secrets),
      referenceUrls: base && links ? references.map((id) => `${base}${links.sign(id)}`) : [],
    };
  };

  const adapterContext = (task: TaskRow): AdapterContext => {
    const settings = executionSettings(task.config);
    return {
      fetch: deps.fetch,
      logger: deps.logger,
      requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
      maxResultBytes: settings.maxResultBytes,
    };
  };

  /** Bytes are written to storage under the file ids now, so workflow history carries no content. */
  const storeBytes = async (task: TaskRow, result: UpstreamResult): Promise<StepResult> => {
    if (result.state === 'running') return result;
    if (result.outputs.length < task.file_ids.length) {
      throw new UpstreamError(
        'permanent',
        `The upstream returned ${result.outputs.length} results for ${task.file_ids.length} files`,
      );
    }
    const outputs = await Promise.all(
      task.file_ids.map(async (fileId, index): Promise<StoredOutput> => {
        const output = result.outputs[index] as UpstreamOutput;
        if (!('bytes' in output)) return output;
        const { size } = await storage.put(fileId, output.bytes);
        return { stored: true, contentType: output.contentType, size };
      }),
    );
    return { state: 'succeeded', outputs };
  };

  /**
   * Runs an upstream call, timed by generator and operation; a 429 is recorded in the generator's
   * health (shared by every process) before it propagates, so submits answer 529 while the
   * upstream asks to be left alone.
   */
  const callUpstream = async <T>(
    task: TaskRow,
    operation: 'submit' | 'poll' | 'download',
    call: () => Promise<T>,
  ): Promise<T> => {
    try {
      return await timeUpstream(task.generator, operation, call);
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'rate_limited')
        await noteRateLimited(db, task.generator_id, error.retryAfterSeconds);
      throw error;
    }
  };

  async function submitUpstream(taskId: string): Promise<StepResult> {
    const task = await loadTask(taskId);
    const adapter = adapterFor(task.type);
    return storeBytes(
      task,
      await callUpstream(task, 'submit', () => adapter.start(upstreamTask(task), adapterContext(task))),
    );
  }

  /** Fetches URL results into storage, then marks every file and the task completed in one statement. */
  async function completeGeneration(taskId: string, outputs: StoredOutput[]): Promise<void> {
    const task = await loadTask(taskId);
    if (task.status === 'completed') return;
    const stored = await Promise.all(
      task.file_ids.map(async (fileId, index) => {
        const output = outputs[index]!;
        if ('stored' in output) return { fileId, contentType: output.contentType, size: output.size };
        const download = await callUpstream(task, 'download', () =>
          downloadBytes(adapterContext(task), output.url),
        );
        const { size } = await storage.put(fileId, download.bytes);
        return { fileId, contentType: output.contentType ?? download.contentType, size };
      }),
    );
    // One statement: the task (if still running) and its files, in one commit; then their events.
    const sent = await rows<{ event: FileStatusEvent }>(
      db,
      `WITH done AS (
         UPDATE content.generations SET status = 'completed', error_message = NULL, updated_at = now()
          WHERE id = :taskId AND status IN ('pending', 'processing')
          RETURNING id, owner_id, file_ids
       ), files AS (
         UPDATE content.files f
            SET status = 'completed', storage_key = CAST(s.id AS text), size = s.size,
                content_type = s.content_type, error_message = NULL, updated_at = now()
           FROM done, jsonb_to_recordset(CAST(:stored AS jsonb)) AS s (id uuid, size bigint, content_type text)
          WHERE f.id = s.id AND f.status <> 'completed'
       )
       ${fileStatusEvents('done', 'completed')}`,
      {
        taskId,
        // One JSON array rather than three: replacements would spread a JS array into a list.
        stored: JSON.stringify(
          stored.map((file) => ({ id: file.fileId, size: file.size, content_type: file.contentType })),
        ),
      },
    );
    announceFileStatus(
      db,
      sent.map((row) => row.event),
    );
    platformMetrics.generationTasks.inc({ kind: task.kind, status: 'completed' });
  }

  return {
    /** Moves the task and its files to processing (once) and tells the workflow how to run it. */
    async beginGeneration(taskId: string): Promise<TaskPlan> {
      // One statement: read the task, move it (and its files) from pending; then their events.
      const task = await one<PlanRow>(
        db,
        `WITH task AS (
           SELECT g.kind, g.status, g.file_ids, r.type, r.config
             FROM content.generations g JOIN content.generators r ON r.id = g.generator_id
            WHERE g.id = :taskId
         ), moved AS (
           UPDATE content.generations SET status = 'processing', updated_at = now()
            WHERE id = :taskId AND status = 'pending'
            RETURNING id, owner_id, file_ids
         ), files AS (
           UPDATE content.files SET status = 'processing', updated_at = now()
            WHERE generation_id IN (SELECT id FROM moved) AND status <> 'completed'
         ), sent AS (${fileStatusEvents('moved', 'processing')})
         SELECT task.*, EXISTS (SELECT 1 FROM moved) AS moved, (SELECT json_agg(event) FROM sent) AS events FROM task`,
        { taskId },
      );
      if (!task) throw new NotFoundError(`No generation task ${taskId}`);
      announceFileStatus(db, task.events);
      // Pending in the snapshot but not moved: it ended concurrently (a cancel); a retry looks again.
      if (task.status === 'pending' && !task.moved) throw new ConflictError('the task changed concurrently');
      if (task.moved) platformMetrics.generationTasks.inc({ kind: task.kind, status: 'processing' });
      if (task.status === 'completed' || task.status === 'failed')
        return { finished: true, status: task.status };
      return {
        finished: false,
        files: task.file_ids.length,
        inProcess: adapterFor(task.type).runsInProcess?.(task.config) ?? false,
        ...executionSettings(task.config),
      };
    },

    submitUpstream,

    /** A task whose adapter runs in process, made and completed in one step. */
    async generateInProcess(taskId: string): Promise<void> {
      const step = await submitUpstream(taskId);
      if (step.state !== 'succeeded')
        throw new UpstreamError('permanent', 'An in-process generator answered "running"');
      await completeGeneration(taskId, step.outputs);
    },

    async pollUpstream(taskId: string, upstreamId: string): Promise<StepResult> {
      const task = await loadTask(taskId);
      const adapter = adapterFor(task.type);
      if (!adapter.poll) throw new UpstreamError('permanent', `The ${task.type} adapter does not poll`);
      const poll = adapter.poll.bind(adapter);
      return storeBytes(
        task,
        await callUpstream(task, 'poll', () => poll(upstreamTask(task), upstreamId, adapterContext(task))),
      );
    },

    completeGeneration,

    /** Best effort: a cancelled task asks its upstream to stop; an upstream that cannot is left to finish. */
    async cancelUpstream(taskId: string, upstreamId: string): Promise<void> {
      const task = await loadTask(taskId);
      const adapter = adapterFor(task.type);
      if (!adapter.cancel) return;
      await adapter
        .cancel(upstreamTask(task), upstreamId, adapterContext(task))
        .catch((error: unknown) => deps.logger.warn({ err: error, taskId }, 'the upstream did not cancel'));
    },

    /** The compensation of the charge (see failGeneration): failed, refunded, once. */
    async failAndRefundGeneration(taskId: string, message: string, kind?: FailureKind): Promise<void> {
      await failGeneration(db, taskId, message, {
        refundDescription: 'Refund: the generation failed',
        ...(kind ? { kind } : {}),
      });
    },
  };
}

export type GenerationSteps = ReturnType<typeof createGenerationSteps>;
