import type { Request } from 'express';
import type { ResolvedOperation } from '../openapi.ts';

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
