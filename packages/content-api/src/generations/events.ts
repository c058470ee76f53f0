/**
 * Every status change of a generated file is sent on this event-bus channel by the statement
 * that makes the change (so an event is only seen for a committed state). Conversation sockets
 * and SDK helpers subscribe to it and filter by `owner_id`.
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
 * The one way a file-status event is sent: the tail of a statement (a SELECT) that sends a
 * FileStatusEvent for each file of the task rows `tasks` names (columns id, owner_id, file_ids),
 * delivered at the statement's commit. `errorMessage` is an SQL expression (a parameter) for
 * failed files.
 */
export function fileStatusEvents(tasks: string, status: FileStatus, errorMessage?: string): string {
  const error = errorMessage ? `, 'error_message', ${errorMessage}` : '';
  return `SELECT pg_notify('${FILE_STATUS_CHANNEL}', json_build_object(
            'file_id', file_id, 'generation_id', ${tasks}.id, 'owner_id', ${tasks}.owner_id, 'status', '${status}'${error})::text)
            FROM ${tasks}, unnest(${tasks}.file_ids) AS file_id`;
}
