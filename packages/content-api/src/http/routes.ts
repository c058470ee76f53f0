import type { Request, RequestHandler, Response } from 'express';
import { operationKey } from './operation.ts';
import { validatedOperation } from './request-validation.ts';

export type OperationHandler = (req: Request, res: Response) => Promise<void> | void;

/**
 * An area's handlers of documented operations, by method and the document's path
 * (`get /api/v1/users/{id}`): the request's operation is found once, by request validation, and
 * its handler is called from that (dispatchOperations), not by matching the path again.
 */
export class Routes {
  readonly handlers = new Map<string, OperationHandler>();

  add(method: string, path: string, handler: OperationHandler): this {
    const key = operationKey(method, path);
    if (this.handlers.has(key)) throw new Error(`${key} has two handlers`);
    this.handlers.set(key, handler);
    return this;
  }
}

/**
 * Calls the handler of the operation request validation matched. Express would instead try every
 * area's routes in turn, and leave each router that has none for the request on a later turn of
 * the event loop. A request with no declared handler goes on to the app's routers.
 */
export function dispatchOperations(
  document: { paths: Record<string, unknown> },
  areas: Routes[],
): RequestHandler {
  const documented = new Set(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => operationKey(method, path)),
    ),
  );
  const handlers = new Map<string, OperationHandler>();
  for (const { handlers: own } of areas)
    for (const [key, handler] of own) {
      if (handlers.has(key)) throw new Error(`${key} has two handlers`);
      // Only documented operations are validated, so only they reach a handler.
      if (!documented.has(key)) throw new Error(`${key} has a handler but is not in the OpenAPI document`);
      handlers.set(key, handler);
    }
  return (req, res, next) => {
    const operation = validatedOperation(req);
    const handler = operation && handlers.get(operation.key);
    if (!handler) return next();
    // What a router sets: the path values (each middleware's layer reset them), and the route
    // metrics and traces name the request by (`/api/v1/users/:id`).
    req.params = operation.params;
    req.route = { path: operation.expressRoute };
    try {
      const pending = handler(req, res);
      if (pending) pending.catch(next);
    } catch (error) {
      next(error);
    }
  };
}
