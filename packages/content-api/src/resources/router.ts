import type { Request } from 'express';
import type { Transaction } from 'sequelize';
import { ConflictError, NotFoundError, exec, isUniqueViolation, one, sqlState, transact } from '@muse/core';
import type { ContentContext } from '../context.ts';
import { currentUser, requireAdmin, requirePermission } from '../auth/authenticate.ts';
import { authorizeListScope, listRows, parseListQuery } from '../listing/listing.ts';
import type { Routes } from '../http/routes.ts';
import { assertReferenceReadable } from './access.ts';
import {
  isIntegerField,
  isJsonField,
  isWritableOn,
  type HookContext,
  type ResourceDeclaration,
  type Row,
} from './define.ts';
import { createResourceKit, selectColumns } from './kit.ts';

/**
 * Turns one declaration into the handlers of its operations: list, create, get, patch, delete
 * under `/api/v1<path>`. Bodies and query parameters were already validated against the generated
 * OpenAPI document; this layer applies the permission model and writes the row.
 */
export function addResourceRoutes(
  routes: Routes,
  ctx: ContentContext,
  declaration: ResourceDeclaration,
): void {
  const kit = createResourceKit(ctx, declaration);
  const base = `/api/v1${declaration.path}`;
  // The list's columns, named once per resource rather than on every request.
  const columns = selectColumns(declaration);
  const listedAsStored =
    !declaration.hooks?.present &&
    !Object.values(declaration.fields).some((field) => field.stored !== false && isIntegerField(field));

  routes.add('get', base, async (req, res) => {
    const query = parseListQuery(req.query as Record<string, unknown>, declaration.defaultListScope);
    const user = authorizeListScope(req, declaration.name, query.scope);
    const { where, replacements } = listFilters(declaration, req.query as Record<string, unknown>);
    const rows = await listRows<Row>(
      ctx.db,
      {
        from: declaration.table,
        columns,
        where,
        replacements,
        answeredAsRead: listedAsStored,
      },
      query,
      user,
    );
    // The rows hold exactly the selected columns, in order: with nothing to convert or add, they
    // are answered as they are, not copied.
    res.json(listedAsStored ? rows : rows.map(kit.present));
  });

  routes.add('get', `${base}/{id}`, async (req, res) => {
    res.json(kit.present(await kit.findReadable(currentUser(req), idOf(req))));
  });

  if (declaration.readOnly) return;

  routes.add('post', base, async (req, res) => {
    const user = declaration.adminOnlyWrite
      ? requireAdmin(req)
      : requirePermission(req, declaration.name, 'create', 'own');
    const row = await inTransaction(ctx, declaration, async (transaction) => {
      const hook = { ctx, req, user, transaction };
      const values = await writableValues(declaration, req.body ?? {}, 'create', hook);
      values.visibility ??= declaration.defaultVisibility ?? 'private';
      await declaration.hooks?.beforeCreate?.(values, hook);
      const created = await insertRow(ctx, declaration, { ...values, owner_id: user.id }, transaction);
      await declaration.hooks?.afterCreate?.(created, hook);
      return created;
    });
    res.status(201).json(kit.present(row));
  });

  routes.add('patch', `${base}/{id}`, async (req, res) => {
    const user = currentUser(req);
    const row = await inTransaction(ctx, declaration, async (transaction) => {
      const existing = await kit.findWritable(user, idOf(req), 'update', transaction);
      const hook = { ctx, req, user, transaction };
      const changes = await writableValues(declaration, req.body ?? {}, 'update', hook);
      await declaration.hooks?.beforeUpdate?.(changes, existing, hook);
      const updated = await updateRow(ctx, declaration, existing.id, changes, transaction);
      await declaration.hooks?.afterUpdate?.(updated, existing, hook);
      return updated;
    });
    res.json(kit.present(row));
  });

  routes.add('delete', `${base}/{id}`, async (req, res) => {
    const user = currentUser(req);
    await inTransaction(ctx, declaration, async (transaction) => {
      const existing = await kit.findWritable(user, idOf(req), 'delete', transaction);
      await declaration.hooks?.beforeDelete?.(existing, { ctx, req, user, transaction });
      await exec(ctx.db, `DELETE FROM ${declaration.table} WHERE id = :id`, { id: existing.id }, transaction);
    });
    res.status(204).end();
  });
}

const idOf = (req: Request): string => String(req.params.id);

/**
 * The body's fields this operation may set: visibility (unless private-only) and fields
 * writable on it; references must be readable.
 */
async function writableValues(
  declaration: ResourceDeclaration,
  body: Record<string, unknown>,
  operation: 'create' | 'update',
  { ctx, user, transaction }: HookContext,
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  if (!declaration.privateOnly && body.visibility !== undefined) values.visibility = body.visibility;
  for (const [name, field] of Object.entries(declaration.fields)) {
    if (!isWritableOn(field, operation) || body[name] === undefined) continue;
    if (field.references && body[name] !== null) {
      await assertReferenceReadable(ctx.db, user, field.references, String(body[name]), name, transaction);
    }
    values[name] = body[name];
  }
  return values;
}

function columnValues(declaration: ResourceDeclaration, values: Record<string, unknown>) {
  const names = Object.keys(values);
  const replacements: Record<string, unknown> = {};
  const placeholders = names.map((name) => {
    const field = declaration.fields[name];
    const json = field !== undefined && isJsonField(field);
    replacements[`v_${name}`] = json && values[name] !== null ? JSON.stringify(values[name]) : values[name];
    return json ? `CAST(:v_${name} AS jsonb)` : `:v_${name}`;
  });
  return { names, placeholders, replacements };
}

async function insertRow(
  ctx: ContentContext,
  declaration: ResourceDeclaration,
  values: Record<string, unknown>,
  transaction: Transaction,
): Promise<Row> {
  const { names, placeholders, replacements } = columnValues(declaration, values);
  const row = await one<Row>(
    ctx.db,
    `INSERT INTO ${declaration.table} (${names.join(', ')}) VALUES (${placeholders.join(', ')})
     RETURNING ${selectColumns(declaration)}`,
    replacements,
    transaction,
  );
  return row!;
}

async function updateRow(
  ctx: ContentContext,
  declaration: ResourceDeclaration,
  id: string,
  changes: Record<string, unknown>,
  transaction: Transaction,
): Promise<Row> {
  const { names, placeholders, replacements } = columnValues(declaration, changes);
  const assignments = names.map((name, index) => `${name} = ${placeholders[index]}`);
  const row = await one<Row>(
    ctx.db,
    `UPDATE ${declaration.table} SET ${[...assignments, 'updated_at = clock_timestamp()'].join(', ')}
      WHERE id = :id RETURNING ${selectColumns(declaration)}`,
    { ...replacements, id },
    transaction,
  );
  return row!;
}

/** Equality filters declared on fields, e.g. `?project_id=` on canvases. */
function listFilters(declaration: ResourceDeclaration, query: Record<string, unknown>) {
  const where: string[] = [];
  const replacements: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(declaration.fields)) {
    if (!field.listFilter || query[name] === undefined) continue;
    where.push(`${name} = :f_${name}`);
    replacements[`f_${name}`] = query[name];
  }
  return { where, replacements };
}

/** Runs `work` in one transaction; constraint violations become 409 (unique, check) or 404 (reference gone). */
async function inTransaction<T>(
  ctx: ContentContext,
  declaration: ResourceDeclaration,
  work: (transaction: Transaction) => Promise<T>,
): Promise<T> {
  try {
    return await transact(ctx.db, work);
  } catch (error) {
    const code = sqlState(error);
    if (isUniqueViolation(error))
      throw new ConflictError(declaration.conflictMessage ?? `This ${declaration.name} already exists`);
    if (code === '23503') throw new NotFoundError('A referenced resource no longer exists');
    if (code === '23514')
      throw new ConflictError(`The change conflicts with the ${declaration.name}'s current state`);
    throw error;
  }
}
