import type { Request } from 'express';
import type { ResolvedOperation } from '../openapi.ts';

export type RequestOperation = (req: Request) => ResolvedOperation | undefined;

/**
 * The documented operation a request is for, resolved once per request: authentication (does it
 * need a token?) and authorization (who may call it?) both ask, and each request is resolved once.
 */
export function operationPerRequest(
  resolve: (method: string, path: string) => ResolvedOperation | undefined,
): RequestOperation {
  const resolved = new WeakMap<Request, ResolvedOperation | undefined>();
  return (req) => {
    if (resolved.has(req)) return resolved.get(req);
    const operation = resolve(req.method, req.path);
    resolved.set(req, operation);
    return operation;
  };
}
