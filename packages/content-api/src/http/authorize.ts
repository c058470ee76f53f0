import type { RequestHandler } from 'express';
import { ForbiddenError } from '@muse/core';
import type { RequestOperation, ResolvedOperation } from './operation.ts';

/**
 * Who may call an operation, declared in the document (`x-muse-access` on the operation) and
 * decided before the request's shape is validated, so a 401/403 never hides behind a 422:
 * - `administrators`: everyone else gets 403;
 * - `administrators-or-self`: as above, unless the path's `id` is the caller's own;
 * - a `scope` parameter: `scope=all` is for administrators only.
 * Handlers keep their own checks for what needs the stored row (another user's resource).
 */
export type AccessRule = 'administrators' | 'administrators-or-self';
export const ACCESS = 'x-muse-access';

export function authorizeOperation(
  operationOf: RequestOperation,
  document: { components: Record<string, Record<string, unknown>> },
): RequestHandler {
  return (req, _res, next) => {
    const user = req.user;
    if (!user || user.isAdmin) return next();
    const resolved = operationOf(req);
    if (!resolved) return next();
    const { operation, params } = resolved;
    const rule = operation[ACCESS] as AccessRule | undefined;
    if (rule === 'administrators' || (rule === 'administrators-or-self' && params.id !== user.id))
      return next(new ForbiddenError('Administrators only'));
    if (req.query.scope === 'all' && takesScope(operation, document))
      return next(new ForbiddenError('scope=all is for administrators only'));
    next();
  };
}

type Parameter = { name?: string; $ref?: string };

function deref<T>(
  value: T & { $ref?: string },
  document: { components: Record<string, Record<string, unknown>> },
): T {
  const match = /^#\/components\/(\w+)\/(.+)$/.exec(value.$ref ?? '');
  return match ? (document.components[match[1]!]?.[match[2]!] as T) : value;
}

function takesScope(
  operation: ResolvedOperation['operation'],
  document: Parameters<typeof deref>[1],
): boolean {
  const parameters = (operation.parameters ?? []) as Parameter[];
  return parameters.some((parameter) => deref(parameter, document)?.name === 'scope');
}
