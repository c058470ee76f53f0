import { announcerOf, type Sequelize } from '@muse/core';

/**
 * Every status change of a generated file is announced on this bus channel after the change
 * committed (batched per process: a message is an array of FileStatusEvents). Conversation
 * sockets and waiting submits subscribe to it and filter by `owner_id`; both also read the
 * tables again, so a lost announcement only delays them.
 */
export const FILE_STATUS_CHANNEL = 'muse_file_status';

export type FileStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface FileStatusEvent {
  file_id: string;
  generation_id: string;
  owner_id: string;
  status: FileStatus;
  error_message?: string;
}

/**
 * The events of a status change, as the tail of the statement that makes it: a SELECT with one
 * row (column `event`) per file of the task rows `tasks` names (columns id, owner_id, file_ids).
 * The caller announces them with `announceFileStatus` once the statement's transaction committed.
 * `errorMessage` is an SQL expression (a parameter) for failed files.
 */
export function fileStatusEvents(tasks: string, status: FileStatus, errorMessage?: string): string {
  const error = errorMessage ? `, 'error_message', ${errorMessage}` : '';
  return `SELECT json_build_object(
            'file_id', file_id, 'generation_id', ${tasks}.id, 'owner_id', ${tasks}.owner_id, 'status', '${status}'${error}) AS event
            FROM ${tasks}, unnest(${tasks}.file_ids) AS file_id`;
}

/** Announces committed status changes (the `event` values of `fileStatusEvents`). */
export function announceFileStatus(
  db: Sequelize,
  events: readonly FileStatusEvent[] | null | undefined,
): void {
  const announcer = announcerOf(db);
  for (const event of events ?? []) announcer.announce(FILE_STATUS_CHANNEL, event);
}
