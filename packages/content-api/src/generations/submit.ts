import { createHash, randomUUID } from 'node:crypto';
import {
  AppError,
  ConflictError,
  NotFoundError,
  ValidationError,
  type Config,
  type Logger,
  type Sequelize,
  one,
  rows,
  isUniqueViolation,
} from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import type { CurrentUser } from '../auth/authenticate.ts';
import { failGeneration } from './fail.ts';
import { findGeneratorWithHealth, UpstreamRateLimitedError } from '../generators/health.ts';
import { resultCount, validateParameters, type GenerationKind } from '../generators/parameters.ts';
import { generationCost, pricingOf } from '../generators/pricing.ts';
import { canRead, findFile } from '../files/files.ts';
import { debitClauses, refuseDebit } from '../ledger/ledger.ts';
import { announceFileStatus, fileStatusEvents, type FileStatusEvent } from './events.ts';
import { workflowIdOf } from './contract.ts';
import { startGenerationWorkflow, type WorkflowStarter } from './starter.ts';
import type { Schema } from '../http/contract.ts';

/** The 202 answer: the result files, always pending (their records tell the progress). */
export type SubmitAnswer = Schema<'GenerationResponse'>;

/** The answer and the task it is about (a repeated submit's is the first one's). */
export interface Submitted {
  taskId: string;
  answer: SubmitAnswer;
}

export interface SubmitDeps {
  db: Sequelize;
  temporal: TemporalClient;
  config: Config;
  logger: Logger;
  /** Takes the workflow start off the request path while Temporal answers (see starter.ts). */
  starter?: WorkflowStarter;
}

const CONTENT_TYPES: Record<GenerationKind, string> = {
  image: 'image/png',
  video: 'image/gif',
  text: 'text/plain',
};

/**
 * Accepts a generation task. The charge, its ledger entry, the task and its pending result
 * files are written in one statement; the workflow starts after it commits (by the starter,
 * off the request path, while Temporal answers). With an
 * idempotency key, a repeated submit (even a concurrent one) answers the first task's files
 * and charges nothing more. While the generator's upstream is rate limiting (generators/health.ts),
 * a submit answers 529 and writes nothing.
 */
export async function submitGeneration(
  deps: SubmitDeps,
  user: CurrentUser,
  kind: GenerationKind,
  body: Record<string, unknown>,
  idempotencyKey: string | undefined,
): Promise<Submitted> {
  const requestHash = createHash('sha256')
    .update(`${kind}\n${JSON.stringify(body)}`)
    .digest('hex');
  if (idempotencyKey) {
    const earlier = await findByKey(deps.db, user.id, idempotencyKey);
    if (earlier) return answerRepeat(deps, earlier, requestHash);
  }

  const generator = await findGeneratorWithHealth(deps.db, String(body.generator_id));
  if (!generator || !generator.is_active || generator.kind !== kind)
    throw new NotFoundError('No such generator');
  const params = validateParameters(
    `${generator.id}@${new Date(generator.updated_at).getTime()}`,
    generator.parameters_schema,
    body,
  );
  await checkReferences(deps.db, user, params.reference_file_ids);
  if (generator.rate_limited_for > 0) {
    throw new UpstreamRateLimitedError(
      `The upstream of ${generator.name} is rate limiting; nothing was charged, try again after Retry-After seconds`,
      generator.rate_limited_for,
    );
  }

  const taskId = randomUUID();
  const fileIds = Array.from({ length: resultCount(kind, params) }, () => randomUUID());
  const cost = generationCost(kind, generator.base_cost, pricingOf(generator.config), params);
  try {
    await insertTask(deps.db, {
      taskId,
      user,
      generatorId: generator.id,
      kind,
      params,
      cost,
      idempotencyKey,
      requestHash,
      fileIds,
      chargeDescription: `${generator.name}: ${kind} generation`,
    });
  } catch (error) {
    // A concurrent submit with the same key committed first: answer its task instead.
    if (idempotencyKey && isUniqueViolation(error)) {
      const earlier = await findByKey(deps.db, user.id, idempotencyKey);
      if (earlier) return answerRepeat(deps, earlier, requestHash);
    }
    throw error;
  }
  if (deps.starter?.accepting) deps.starter.enqueue(taskId);
  else await startNow(deps, taskId);
  return { taskId, answer: { file_ids: fileIds, status: 'pending' } };
}

interface TaskRow {
  id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  file_ids: string[];
  request_hash: string;
}

async function findByKey(db: Sequelize, ownerId: string, key: string): Promise<TaskRow | undefined> {
  const row = await one<TaskRow>(
    db,
    'SELECT id, status, file_ids, request_hash FROM content.generations WHERE owner_id = :ownerId AND idempotency_key = :key',
    { ownerId, key },
  );
  return row;
}

/**
 * The first answer again. A pending task's workflow is (re)started, which is a no-op when it
 * runs: this also rescues a task whose API process died between commit and start.
 */
async function answerRepeat(deps: SubmitDeps, earlier: TaskRow, requestHash: string): Promise<Submitted> {
  if (earlier.request_hash !== requestHash) {
    throw new ConflictError('This Idempotency-Key was already used for a different request');
  }
  if (earlier.status === 'pending') await startNow(deps, earlier.id);
  return { taskId: earlier.id, answer: { file_ids: earlier.file_ids, status: 'pending' } };
}

async function checkReferences(db: Sequelize, user: CurrentUser, ids: unknown): Promise<void> {
  if (!Array.isArray(ids)) return;
  const problems: { path: string; message: string }[] = [];
  for (const [index, id] of ids.entries()) {
    const file = await findFile(db, String(id));
    if (!file || !canRead(user, file))
      problems.push({ path: `/reference_file_ids/${index}`, message: 'no such file' });
    else if (file.status !== 'completed')
      problems.push({ path: `/reference_file_ids/${index}`, message: 'the file has no content yet' });
  }
  if (problems.length) throw new ValidationError('A referenced file cannot be used', problems);
}

/**
 * The charge, its ledger entry, the task, its pending result files and their `pending` events,
 * in one statement: one round trip, one implicit transaction, and the account's balance row
 * locked inside Postgres only (by the time a busy API process would send a COMMIT, dozens of
 * submits of the same account could have waited on that lock). The events are announced after it.
 */
async function insertTask(
  db: Sequelize,
  task: {
    taskId: string;
    user: CurrentUser;
    generatorId: string;
    kind: GenerationKind;
    params: Record<string, unknown>;
    cost: number;
    idempotencyKey: string | undefined;
    requestHash: string;
    fileIds: string[];
    chargeDescription: string;
  },
): Promise<void> {
  const charge =
    task.cost > 0
      ? debitClauses({
          id: randomUUID(),
          userId: task.user.id,
          cost: task.cost,
          kind: 'charge',
          reference: `generation:${task.taskId}`,
          description: task.chargeDescription,
        })
      : undefined;
  const sent = await rows<{ event: FileStatusEvent }>(
    db,
    `WITH ${charge ? `${charge.sql},` : ''} task AS (
       INSERT INTO content.generations
         (id, owner_id, generator_id, kind, params, cost, charge_id, idempotency_key, request_hash, file_ids, workflow_id)
       SELECT CAST(:taskId AS uuid), CAST(:ownerId AS uuid), CAST(:generatorId AS uuid), :kind, CAST(:params AS jsonb), :cost,
              ${charge ? 'ledger_posted.id' : 'NULL'}, :key, :requestHash, CAST(:fileIds AS uuid[]), :workflowId
         ${charge ? 'FROM ledger_posted' : ''}
       RETURNING id, owner_id, file_ids
     ), files AS (
       INSERT INTO content.files (id, owner_id, name, content_type, source, status, generation_id)
       SELECT file.id, CAST(:ownerId AS uuid), file.name, :contentType, 'generation', 'pending', task.id
         FROM task, unnest(CAST(:fileIds AS uuid[]), CAST(:names AS text[])) AS file (id, name)
     )
     ${fileStatusEvents('task', 'pending')}`,
    {
      ...charge?.replacements,
      taskId: task.taskId,
      ownerId: task.user.id,
      generatorId: task.generatorId,
      kind: task.kind,
      params: JSON.stringify(task.params),
      cost: task.cost,
      key: task.idempotencyKey ?? null,
      requestHash: task.requestHash,
      fileIds: postgresArray(task.fileIds),
      workflowId: workflowIdOf(task.taskId),
      names: postgresArray(fileNames(task.kind, task.fileIds.length, String(task.params.prompt ?? ''))),
      contentType: CONTENT_TYPES[task.kind],
    },
  );
  // Nothing written: the balance did not cover the cost (402), or the account is gone (404).
  if (sent.length === 0) await refuseDebit(db, undefined, task.user.id, -task.cost);
  announceFileStatus(
    db,
    sent.map((row) => row.event),
  );
}

/** `<prompt>.txt`, or `<prompt> (2).png` when a task makes several files. */
function fileNames(kind: GenerationKind, count: number, prompt: string): string[] {
  const extension = { image: 'png', video: 'gif', text: 'txt' }[kind];
  const base =
    prompt
      .replace(/[^\p{L}\p{N} _-]+/gu, '')
      .trim()
      .slice(0, 40) || kind;
  return Array.from({ length: count }, (_, index) =>
    count > 1 ? `${base} (${index + 1}).${extension}` : `${base}.${extension}`,
  );
}

/** A Postgres array literal: every element quoted, so commas, quotes and braces stay inside it. */
function postgresArray(values: string[]): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/**
 * Starts the task's workflow now, answering 503 when Temporal cannot be reached: the task must
 * not stay charged, so it is failed and refunded at once (submitting again is safe).
 */
async function startNow(deps: SubmitDeps, taskId: string): Promise<void> {
  try {
    await startGenerationWorkflow(deps, taskId);
    deps.starter?.noteOutcome(true);
  } catch (error) {
    deps.starter?.noteOutcome(false);
    deps.logger.error({ err: error, taskId }, 'could not start the generation workflow; refunding');
    // The key is released: the client got 503, so its retry with the same key is a new task.
    await failGeneration(deps.db, taskId, 'The task could not be queued; it was refunded', {
      refundDescription: 'Refund: the task could not be queued',
      kind: 'unavailable',
      releaseIdempotencyKey: true,
    });
    throw new AppError(
      503,
      'unavailable',
      'The generation engine is unavailable; the task was refunded, try again',
    );
  }
}
