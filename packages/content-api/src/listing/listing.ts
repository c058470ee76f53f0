import { ForbiddenError, ValidationError, selectRows, type Sequelize, rows } from '@muse/core';
import { can, SCOPES, type Scope } from '../permissions/permissions.ts';
import { currentUser, type CurrentUser, type WithCaller } from '../auth/authenticate.ts';

/**
 * The one pagination, sorting, time-filter and scope scheme of every list endpoint.
 * Lists answer a plain JSON array; an offset past the end answers `[]`. Rows with equal
 * timestamps keep a stable order by breaking ties on `id`.
 */
export interface ListQuery {
  scope: Scope;
  offset: number;
  limit: number;
  desc: boolean;
  order: 'created_at' | 'updated_at';
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  updatedBefore?: Date;
}

const TIME_FILTERS = {
  created_after_datetime: ['createdAfter', 'created_at', '>'],
  created_before_datetime: ['createdBefore', 'created_at', '<'],
  updated_after_datetime: ['updatedAfter', 'updated_at', '>'],
  updated_before_datetime: ['updatedBefore', 'updated_at', '<'],
} as const;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Parses the list parameters; a wrong one answers 422 naming it. */
export function parseListQuery(query: Record<string, unknown>, defaultScope: Scope = 'own'): ListQuery {
  const problems: { path: string; message: string }[] = [];
  const text = (name: string) => (query[name] === undefined ? undefined : String(query[name]));
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      problems.push({ path: name, message: `must be an integer from ${min} to ${max}` });
    }
    return value;
  };

  const scope = (text('scope') ?? defaultScope) as Scope;
  if (!SCOPES.includes(scope))
    problems.push({ path: 'scope', message: `must be one of ${SCOPES.join(', ')}` });
  const order = (text('order') ?? 'created_at') as ListQuery['order'];
  if (order !== 'created_at' && order !== 'updated_at') {
    problems.push({ path: 'order', message: 'must be created_at or updated_at' });
  }
  const desc = text('desc') ?? 'true';
  if (desc !== 'true' && desc !== 'false') problems.push({ path: 'desc', message: 'must be true or false' });

  const result: ListQuery = {
    scope,
    order,
    desc: desc !== 'false',
    offset: integer('offset', 0, 0, Number.MAX_SAFE_INTEGER),
    limit: integer('limit', 50, 1, 100),
  };
  for (const [name, [key]] of Object.entries(TIME_FILTERS)) {
    const raw = text(name);
    if (raw === undefined) continue;
    const date = new Date(raw);
    if (!ISO_8601.test(raw) || Number.isNaN(date.getTime())) {
      problems.push({ path: name, message: 'must be an ISO 8601 date-time' });
    } else {
      result[key] = date;
    }
  }
  if (problems.length) throw new ValidationError('The list parameters are not valid', problems);
  return result;
}

/**
 * Checks that the caller may list `resource` in the requested scope: `all` is for
 * administrators only; `own` and `public` need the matching read permission.
 */
export function authorizeListScope(req: WithCaller, resource: string, scope: Scope): CurrentUser {
  const user = currentUser(req);
  if (scope === 'all' && !user.isAdmin) throw new ForbiddenError('scope=all is for administrators only');
  if (!can(user, resource, 'read', scope))
    throw new ForbiddenError(`Missing permission ${resource}:read:${scope}`);
  return user;
}

export interface ListSource {
  /** A table or a `FROM`-able expression, e.g. `content.characters`. */
  from: string;
  columns?: string;
  /** Extra conditions, ANDed with the scope and time filters. */
  where?: string[];
  replacements?: Record<string, unknown>;
  /** Whether rows have `visibility` (public scope); default true. */
  hasVisibility?: boolean;
  /** The owner column; default `owner_id`. */
  ownerColumn?: string;
  /** Rows nobody owns (generators, code providers): no scope filter applies. */
  ownerless?: boolean;
  /** A column sorted on before `order` (e.g. a provider's priority); `order` then breaks its ties. */
  sortFirst?: string;
  /**
   * The rows are answered as read: `timestamptz` columns may come as their JSON text instead of
   * Dates (selectRows' `jsonTimestamps`), which serialises the same for a fraction of the CPU.
   */
  answeredAsRead?: boolean;
}

/** Runs a scoped, filtered, sorted, paginated SELECT and returns its rows. */
export async function listRows<T extends object>(
  db: Sequelize,
  source: ListSource,
  query: ListQuery,
  user: CurrentUser,
): Promise<T[]> {
  const where = [...(source.where ?? [])];
  const replacements: Record<string, unknown> = {
    ...source.replacements,
    offset: query.offset,
    limit: query.limit,
  };
  if (source.ownerless) {
    // Nothing to filter by owner: the caller's access was decided by the route.
  } else if (query.scope === 'own') {
    where.push(`${source.ownerColumn ?? 'owner_id'} = :callerId`);
    replacements.callerId = user.id;
  } else if (query.scope === 'public') {
    where.push(source.hasVisibility === false ? 'false' : `visibility = 'public'`);
  }
  for (const [, [key, column, operator]] of Object.entries(TIME_FILTERS)) {
    if (query[key]) {
      where.push(`${column} ${operator} :${key}`);
      replacements[key] = query[key];
    }
  }
  const direction = query.desc ? 'DESC' : 'ASC';
  const sql =
    `SELECT ${source.columns ?? '*'} FROM ${source.from}` +
    (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY ${source.sortFirst ? `${source.sortFirst}, ` : ''}${query.order} ${direction}, id ${direction}` +
    ' OFFSET :offset LIMIT :limit';
  // Lists are the hottest reads: straight through pg, unless a value is a list (Sequelize expands
  // those); prepared when the columns are named (see selectRows).
  if (Object.values(replacements).some(Array.isArray)) return rows<T>(db, sql, replacements);
  const { text, values } = positional(sql, replacements);
  return selectRows<T>(db, text, values, {
    prepare: source.columns !== undefined,
    jsonTimestamps: source.answeredAsRead === true,
  });
}

/**
 * `:name` placeholders (those named in `replacements`; `::type` casts are left alone) as `$n`,
 * with their values in order. The SQL is built from code above; only values come from input.
 */
function positional(sql: string, replacements: Record<string, unknown>): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const numbers = new Map<string, number>();
  const text = sql.replace(/(?<![:\w]):(\w+)/g, (placeholder, name: string) => {
    if (!(name in replacements)) return placeholder;
    let number = numbers.get(name);
    if (number === undefined) numbers.set(name, (number = values.push(replacements[name])));
    return `$${number}`;
  });
  return { text, values };
}
