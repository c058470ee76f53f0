import type { Transaction } from 'sequelize';
import { ForbiddenError } from '@muse/core';
import type { CurrentUser } from '../auth/authenticate.ts';
import type { ContentContext } from '../context.ts';
import { authorizeRead, authorizeWrite, loadRow, notFound } from './access.ts';
import { isIntegerField, storedFields, type ResourceDeclaration, type Row } from './define.ts';

/**
 * One declared resource's rows as its operations read and show them: found under the permission
 * model, and presented as the API answers them. The resource's own routes use it, and so do the
 * routers of operations on a resource that are not list/get/create/update/delete (a
 * conversation's messages, a payment's refunds).
 */
export interface ResourceKit {
  ctx: ContentContext;
  declaration: ResourceDeclaration;
  /** The row if the caller may read it; the same 404 when it is missing or another user's private one. */
  findReadable(user: CurrentUser, id: string, transaction?: Transaction): Promise<Row>;
  /** The row locked for `operation`; 404 as above, 403 for another user's public row unless administrator. */
  findWritable(
    user: CurrentUser,
    id: string,
    operation: 'update' | 'delete',
    transaction: Transaction,
  ): Promise<Row>;
  present(row: Row): Record<string, unknown>;
}

export function createResourceKit(ctx: ContentContext, declaration: ResourceDeclaration): ResourceKit {
  const columns = selectColumns(declaration);
  return {
    ctx,
    declaration,
    async findReadable(user, id, transaction) {
      const row = await loadRow(ctx.db, declaration.table, id, {
        columns,
        ...(transaction ? { transaction } : {}),
      });
      if (!row) throw notFound(declaration.name);
      authorizeRead(user, declaration.name, row);
      return row;
    },
    async findWritable(user, id, operation, transaction) {
      if (declaration.adminOnlyWrite && !user.isAdmin) {
        throw new ForbiddenError(`Only administrators may ${operation} a ${declaration.name}`);
      }
      const row = await loadRow(ctx.db, declaration.table, id, { columns, transaction, lock: true });
      if (!row) throw notFound(declaration.name);
      authorizeWrite(user, declaration.name, operation, row);
      return row;
    },
    present: presenter(ctx, declaration),
  };
}

const FRAME_COLUMNS = ['id', 'owner_id', 'visibility', 'created_at', 'updated_at'];

export function selectColumns(declaration: ResourceDeclaration): string {
  return [...FRAME_COLUMNS, ...storedFields(declaration)].join(', ');
}

/** Shows a row as the API answers it; which fields and which are integers is worked out once, not per row. */
function presenter(
  ctx: ContentContext,
  declaration: ResourceDeclaration,
): (row: Row) => Record<string, unknown> {
  const fields = Object.entries(declaration.fields)
    .filter(([, field]) => field.stored !== false)
    .map(([name, field]) => ({ name, integer: isIntegerField(field) }));
  return (row) => {
    const output: Record<string, unknown> = {};
    for (const column of FRAME_COLUMNS) output[column] = row[column];
    for (const { name, integer } of fields) {
      const value = row[name];
      // pg returns BIGINT and NUMERIC as text.
      output[name] = integer && value !== null && value !== undefined ? Number(value) : value;
    }
    return declaration.hooks?.present?.(output, row, ctx) ?? output;
  };
}
