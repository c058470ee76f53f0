import type { Request } from 'express';

/** How an operation is named in validatedOperation and routes.ts: `GET /api/v1/users/{id}`. */
export const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** The keys of a path item that are operations. */
export const OPERATION_METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** An operation of the document as it applies to one request: the operation and its path values. */
export interface ResolvedOperation {
  operation: Record<string, unknown> & { security?: unknown[] };
  /** Its method and the document's path, as `operationKey` names it (`GET /api/v1/users/{id}`). */
  key: string;
  /** The path values as they appear in the path (not decoded). */
  params: Record<string, string>;
}

/**
 * Finds, from the document alone, the operation a request is for. Matched as the router matches:
 * any letter case, an optional trailing slash, so a variant the router would serve is never
 * resolved differently. Literal paths win over templated ones (`/users/stats` before `/users/{id}`).
 * Literal paths are one map lookup; templated ones are tried only among those with the method and
 * as many segments as the request's path (a template segment never spans a slash).
 */
export function createOperationResolver(document: {
  paths: Record<string, unknown>;
}): (method: string, path: string) => ResolvedOperation | undefined {
  type Found = Omit<ResolvedOperation, 'params'>;
  const literal = new Map<string, Found>();
  const templated = new Map<string, (Found & { pattern: RegExp; names: string[] })[]>();
  for (const [template, item] of Object.entries(document.paths)) {
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    const pattern = new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}/?$`,
      'i',
    );
    for (const [method, operation] of Object.entries(
      item as Record<string, ResolvedOperation['operation']>,
    )) {
      if (!OPERATION_METHODS.includes(method)) continue;
      const found = { operation, key: operationKey(method, template) };
      if (!names.length) literal.set(`${method.toUpperCase()} ${template.toLowerCase()}`, found);
      else {
        const bucket = `${method.toUpperCase()} ${segments(template)}`;
        templated.set(bucket, [...(templated.get(bucket) ?? []), { ...found, pattern, names }]);
      }
    }
  }
  return (method, path) => {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const found = literal.get(`${method} ${trimmed.toLowerCase()}`);
    if (found) return { operation: found.operation, key: found.key, params: {} };
    for (const rule of templated.get(`${method} ${segments(trimmed)}`) ?? []) {
      const match = rule.pattern.exec(path);
      if (!match) continue;
      const params = Object.fromEntries(rule.names.map((name, i) => [name, match[i + 1]!]));
      return { operation: rule.operation, key: rule.key, params };
    }
    return undefined;
  };
}

function segments(path: string): number {
  return path.split('/').length;
}

/**
 * Whether a resolved operation needs a token: operations with `security: []` are public, the
 * rest inherit the document's bearer requirement. Undocumented operations are left to the
 * request validator, which answers 404 or 405.
 */
export function accessOf(resolved: ResolvedOperation | undefined): 'public' | 'secured' | 'undocumented' {
  if (!resolved) return 'undocumented';
  const { security } = resolved.operation;
  return Array.isArray(security) && security.length === 0 ? 'public' : 'secured';
}

export type RequestOperation = (req: Request) => ResolvedOperation | undefined;

/** Where a request keeps its resolved operation (null: none): a property, not a WeakMap entry per request. */
const RESOLVED = Symbol('resolved operation');
type WithResolved = Request & { [RESOLVED]?: ResolvedOperation | null };

/**
 * The documented operation a request is for, resolved once per request: authentication (does it
 * need a token?) and authorization (who may call it?) both ask, and each request is resolved once.
 */
export function operationPerRequest(
  resolve: (method: string, path: string) => ResolvedOperation | undefined,
): RequestOperation {
  return (req: WithResolved) => {
    const known = req[RESOLVED];
    if (known !== undefined) return known ?? undefined;
    const operation = resolve(req.method, req.path);
    req[RESOLVED] = operation ?? null;
    return operation;
  };
}
