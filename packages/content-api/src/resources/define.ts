import type { Request } from 'express';
import type { Transaction } from 'sequelize';
import type { Scope } from '../permissions/permissions.ts';
import type { CurrentUser } from '../auth/authenticate.ts';
import type { ContentContext } from '../context.ts';

/** A JSON Schema (OpenAPI 3.1 dialect) as written in a declaration. */
export type JsonSchema = Record<string, unknown>;

export type Row = Record<string, unknown> & { id: string; owner_id: string; visibility: string };

export interface FieldDeclaration {
  /** The value's schema; it validates request bodies and documents responses. */
  schema: JsonSchema;
  /**
   * Who may set the field: `true` on create and update, `'create'` only on create,
   * `'update'` only on update; absent for fields the server computes.
   */
  writable?: boolean | 'create' | 'update';
  /** Must be sent on create. */
  required?: boolean;
  /**
   * The field holds the id of another resource (by permission name, e.g. `file`); the caller
   * must be able to read that resource, otherwise the request answers 404.
   */
  references?: string;
  /** `false` for a field a `present` hook computes rather than a table column. */
  stored?: boolean;
  /** Accept it as an equality filter on the list endpoint. */
  listFilter?: boolean;
}

/** What hooks receive: the request's collaborators, caller and database transaction. */
export interface HookContext {
  ctx: ContentContext;
  req: Request;
  user: CurrentUser;
  transaction: Transaction;
}

export interface ResourceHooks {
  /** Adjusts the column values of a new row (computed fields, extra checks); runs in the transaction. */
  beforeCreate?(values: Record<string, unknown>, hook: HookContext): Promise<void>;
  /** Adjusts the changes to an existing row (locked `FOR UPDATE`); runs in the transaction. */
  beforeUpdate?(changes: Record<string, unknown>, existing: Row, hook: HookContext): Promise<void>;
  afterCreate?(row: Row, hook: HookContext): Promise<void>;
  afterUpdate?(row: Row, previous: Row, hook: HookContext): Promise<void>;
  beforeDelete?(row: Row, hook: HookContext): Promise<void>;
  /** Adds computed output fields (e.g. a download link) to the presented row. */
  present?(output: Record<string, unknown>, row: Row, ctx: ContentContext): Record<string, unknown>;
}

export interface ResourceDeclaration {
  /** The permission name (`character` in `character:read:own`). */
  name: string;
  /** Schema-qualified table; it has the frame of migration 0200 (id, owner_id, visibility, timestamps). */
  table: string;
  /** Collection path below /api/v1, e.g. `/characters`. */
  path: string;
  /** OpenAPI schema name; `<Name>Create` and `<Name>Update` are derived from it. */
  schemaName: string;
  /** Plural used in operation ids; default `<schemaName>s`. */
  pluralName?: string;
  description: string;
  fields: Record<string, FieldDeclaration>;
  /**
   * One resource as the API presents it: `id` and a value for every field. The reference shows
   * the operations' examples made from it (the create and update bodies take its writable fields),
   * and test/reference-pages-content-examples.test.ts makes them against the live API. An id it
   * names (a referenced resource's) is the `example.id` of that resource's declaration.
   */
  example: Record<string, unknown> & { id: string };
  /** Create, update and delete are for administrators only (403 for others). */
  adminOnlyWrite?: boolean;
  /** Only list and get-one exist. */
  readOnly?: boolean;
  /** Rows are always private; visibility is not writable. */
  privateOnly?: boolean;
  defaultVisibility?: 'private' | 'public';
  /** The list's scope when none is given; default own. */
  defaultListScope?: Scope;
  /** The 409 message when a unique constraint refuses a row. */
  conflictMessage?: string;
  hooks?: ResourceHooks;
}

/** Tables of the resources a field may reference, by permission name. Files belong to another area. */
const referenceTables = new Map<string, string>([['file', 'content.files']]);

export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  referenceTables.set(declaration.name, declaration.table);
  return declaration;
}

export function referenceTable(resource: string): string {
  const table = referenceTables.get(resource);
  if (!table) throw new Error(`No table is registered for resource ${resource}`);
  return table;
}

/** Registers a referenceable resource that is not declared here (same frame: owner_id, visibility). */
export function registerReferenceTarget(resource: string, table: string): void {
  referenceTables.set(resource, table);
}

export const storedFields = (declaration: ResourceDeclaration): string[] =>
  Object.entries(declaration.fields)
    .filter(([, field]) => field.stored !== false)
    .map(([name]) => name);

export const isWritableOn = (field: FieldDeclaration, operation: 'create' | 'update'): boolean =>
  field.writable === true || field.writable === operation;

/** Objects and arrays live in jsonb columns. */
export function isJsonField(field: FieldDeclaration): boolean {
  const type = field.schema.type;
  const types = Array.isArray(type) ? type : [type];
  return types.includes('object') || types.includes('array');
}

export function isIntegerField(field: FieldDeclaration): boolean {
  const type = field.schema.type;
  return Array.isArray(type) ? type.includes('integer') : type === 'integer';
}

export const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type, 'null'] });
