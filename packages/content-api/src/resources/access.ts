import type { Transaction } from 'sequelize';
import { ForbiddenError, NotFoundError, type Sequelize, one } from '@muse/core';
import { can } from '../permissions/permissions.ts';
import type { CurrentUser } from '../auth/authenticate.ts';
import { referenceTable, type Row } from './define.ts';

/**
 * The scope table of the spec applied to one row. Missing rows and other users' private rows
 * throw the very same 404, so an answer never tells whether a private resource exists.
 */
export function notFound(resource: string): NotFoundError {
  return new NotFoundError(`No ${resource} with this id`);
}

/** get one: own (read:own), someone else's public (read:public), anything for administrators. */
export function authorizeRead(user: CurrentUser, resource: string, row: Row): void {
  if (row.owner_id === user.id) {
    if (!can(user, resource, 'read', 'own'))
      throw new ForbiddenError(`Missing permission ${resource}:read:own`);
    return;
  }
  if (user.isAdmin) return;
  if (row.visibility !== 'public') throw notFound(resource);
  if (!can(user, resource, 'read', 'public'))
    throw new ForbiddenError(`Missing permission ${resource}:read:public`);
}

/** update/delete: the owner (op:own), administrators (scope all); another user's public row is 403. */
export function authorizeWrite(
  user: CurrentUser,
  resource: string,
  operation: 'update' | 'delete',
  row: Row,
): void {
  if (row.owner_id === user.id) {
    if (!can(user, resource, operation, 'own')) {
      throw new ForbiddenError(`Missing permission ${resource}:${operation}:own`);
    }
    return;
  }
  if (can(user, resource, operation, 'all')) return;
  if (row.visibility !== 'public') throw notFound(resource);
  throw new ForbiddenError(`Only the owner or an administrator may ${operation} this ${resource}`);
}

export async function loadRow(
  db: Sequelize,
  table: string,
  id: string,
  options: { transaction?: Transaction; lock?: boolean; columns?: string } = {},
): Promise<Row | undefined> {
  return one<Row>(
    db,
    `SELECT ${options.columns ?? '*'} FROM ${table} WHERE id = :id${options.lock ? ' FOR UPDATE' : ''}`,
    { id },
    options.transaction,
  );
}

/**
 * A field referencing another resource: the caller must be able to read it (their own, a
 * public one, or any as administrator); otherwise 404 naming the field, whether it is missing
 * or private, so references cannot probe for other users' private resources.
 */
export async function assertReferenceReadable(
  db: Sequelize,
  user: CurrentUser,
  resource: string,
  id: string,
  field: string,
  transaction?: Transaction,
): Promise<Row> {
  const row = await loadRow(db, referenceTable(resource), id, { transaction });
  const missing = new NotFoundError(`${field}: no ${resource} with this id that you may read`);
  if (!row) throw missing;
  try {
    authorizeRead(user, resource, row);
  } catch {
    throw missing;
  }
  return row;
}
