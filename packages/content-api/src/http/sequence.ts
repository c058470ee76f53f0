import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run one after another as plain calls, as one layer of the app: each layer is
 * another step of Express's router per request (its matching, its bookkeeping), and these run
 * for every request. As in a router, an error (passed on or thrown) skips the rest.
 */
export function inSequence(handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown) => {
      const handler = handlers[index++];
      if (error !== undefined || !handler) return next(error);
      try {
        const pending: unknown = handler(req, res, step);
        // As Express's router does for a handler that returns a promise.
        if (pending instanceof Promise) pending.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
