import { NotFoundError, type Sequelize, one } from '@muse/core';
import type { CurrentUser } from '../auth/authenticate.ts';
import { can } from '../permissions/permissions.ts';

export interface FileRow {
  id: string;
  owner_id: string;
  visibility: 'private' | 'public';
  name: string;
  content_type: string;
  size: string | number;
  storage_key: string | null;
  source: 'upload' | 'generation';
  status: 'pending' | 'processing' | 'completed' | 'failed';
  error_message: string | null;
  generation_id: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** The file record of the API; `download_url` only once the content exists. */
export function presentFile(row: FileRow, downloadUrl: (id: string) => string) {
  return {
    id: row.id,
    owner_id: row.owner_id,
    name: row.name,
    visibility: row.visibility,
    content_type: row.content_type,
    size: Number(row.size),
    source: row.source,
    status: row.status,
    error_message: row.error_message,
    generation_id: row.generation_id,
    download_url: row.status === 'completed' && row.storage_key ? downloadUrl(row.id) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function findFile(db: Sequelize, id: string): Promise<FileRow | undefined> {
  const row = await one<FileRow>(db, 'SELECT * FROM content.files WHERE id = :id', { id });
  return row;
}

/** Whether `user` may read `file`: their own, a public one, or any for administrators. */
export function canRead(user: CurrentUser, file: FileRow): boolean {
  if (file.owner_id === user.id) return can(user, 'file', 'read', 'own');
  if (file.visibility === 'public') return can(user, 'file', 'read', 'public');
  return user.isAdmin;
}

/** A file the caller may read; a missing one and another user's private one give the same 404. */
export async function readableFile(db: Sequelize, user: CurrentUser, id: string): Promise<FileRow> {
  const file = await findFile(db, id);
  if (!file || !canRead(user, file)) throw new NotFoundError('No such file');
  return file;
}
