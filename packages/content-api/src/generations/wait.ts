import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, payloadsOf, type MessageBus, type Sequelize, one, rows } from '@muse/core';
import type { FileRow } from '../files/files.ts';
import { rateLimitedFor, UpstreamRateLimitedError } from '../generators/health.ts';
import type { FailureKind } from './contract.ts';
import { FILE_STATUS_CHANNEL, type FileStatusEvent } from './events.ts';
import type { Submitted } from './submit.ts';

/** The longest a submit waits for its task (`Prefer: wait=N` is capped to it), as Replicate's 60 s. */
export const MAX_WAIT_SECONDS = 60;

/**
 * The seconds a submit's `Prefer` header (RFC 7240) asks to wait: `wait` alone means the cap,
 * `wait=N` means N up to the cap; undefined without a usable wait preference (it is then
 * ignored, as RFC 7240 asks of preferences a server does not understand).
 */
export function preferredWait(prefer: string | undefined): number | undefined {
  for (const preference of (prefer ?? '').split(',')) {
    const match = /^\s*wait\s*(?:=\s*"?(\d{1,9})"?)?\s*(?:;.*)?$/i.exec(preference);
    if (!match) continue;
    const seconds = match[1] === undefined ? MAX_WAIT_SECONDS : Number(match[1]);
    return seconds > 0 ? Math.min(seconds, MAX_WAIT_SECONDS) : undefined;
  }
  return undefined;
}

/** A task that ended within the wait: its final state and result files (in file_ids order). */
export interface TaskEnd {
  status: 'completed' | 'failed';
  failureKind: FailureKind | null;
  generatorId: string;
  files: FileRow[];
}

/** How often a waiting submit reads its task again, should the bus have lost an announcement. */
const CATCH_UP_MS = 2000;

/**
 * Submits (through `submit`) and waits up to `seconds` for the task to end, on the file-status
 * announcements (subscribed before the submit, so none is missed) and on a read of the task every
 * CATCH_UP_MS (so a lost announcement only delays the answer). Answers the end, or undefined when
 * the wait ran out first (the task goes on; the client follows it like any other).
 */
export async function submitAndWait(
  deps: { db: Sequelize; bus: MessageBus },
  ownerId: string,
  seconds: number,
  submit: () => Promise<Submitted>,
): Promise<{ submitted: Submitted; end: TaskEnd | undefined }> {
  const ended = new Set<string>();
  let check = () => {};
  const unsubscribe = await deps.bus.subscribe(FILE_STATUS_CHANNEL, (message) => {
    for (const event of payloadsOf(message) as FileStatusEvent[]) {
      if (event.owner_id !== ownerId || (event.status !== 'completed' && event.status !== 'failed')) continue;
      ended.add(event.file_id);
    }
    check();
  });
  const timer = new AbortController();
  try {
    const submitted = await submit();
    const allEnded = new Promise<void>((resolve) => {
      check = () => {
        if (submitted.answer.file_ids.every((id) => ended.has(id))) resolve();
      };
    });
    check();
    const deadline = Date.now() + seconds * 1000;
    // The announcements wake the wait once; after that only the clock does.
    let woken: Promise<unknown> = allEnded;
    for (;;) {
      const end = await taskEnd(deps.db, submitted.taskId);
      const left = deadline - Date.now();
      if (end || left <= 0) return { submitted, end };
      const tick = sleep(Math.min(left, CATCH_UP_MS), 'tick', { signal: timer.signal }).catch(() => 'tick');
      if ((await Promise.race([woken.then(() => 'event'), tick])) === 'event') woken = new Promise(() => {});
    }
  } finally {
    timer.abort();
    await unsubscribe();
  }
}

/** The task's end, read from the database; undefined while it is pending or processing. */
async function taskEnd(db: Sequelize, taskId: string): Promise<TaskEnd | undefined> {
  const task = await one<{ status: string; failure_kind: FailureKind | null; generator_id: string }>(
    db,
    'SELECT status, failure_kind, generator_id FROM content.generations WHERE id = :taskId',
    { taskId },
  );
  if (task?.status !== 'completed' && task?.status !== 'failed') return undefined;
  const files = await rows<FileRow>(
    db,
    `SELECT f.* FROM content.generations g, unnest(g.file_ids) WITH ORDINALITY AS u (id, n)
       JOIN content.files f ON f.id = u.id
      WHERE g.id = :taskId ORDER BY u.n`,
    { taskId },
  );
  return { status: task.status, failureKind: task.failure_kind, generatorId: task.generator_id, files };
}

/** 504: the upstream did not answer in time; the task failed and was refunded. */
export class UpstreamTimeoutError extends AppError {
  constructor(message: string, details?: unknown) {
    super(504, 'upstream_timeout', message, { details });
  }
}

/**
 * What a waiting submit answers for a task that ended: 504 when the upstream timed out, 529
 * (with Retry-After from the generator's health) when it kept rate limiting; otherwise nothing
 * is thrown and the finished records are the answer.
 */
export async function refuseUpstreamFailure(db: Sequelize, end: TaskEnd): Promise<void> {
  const error_message = end.files.find((file) => file.error_message)?.error_message ?? undefined;
  const details = { file_ids: end.files.map((file) => file.id), error_message };
  if (end.failureKind === 'timeout') {
    throw new UpstreamTimeoutError(
      'The upstream generation service timed out; the task failed and was refunded, submit it again',
      details,
    );
  }
  if (end.failureKind === 'rate_limited') {
    throw new UpstreamRateLimitedError(
      'The upstream generation service is rate limiting; the task failed and was refunded, submit it again after Retry-After seconds',
      Math.max(1, await rateLimitedFor(db, end.generatorId)),
      details,
    );
  }
}
