import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError, closeIfBodyLeftUnread, databaseUnavailable, requestLog, type Logger } from '@muse/core';
import { JsonableError } from '../domain/errors.ts';

// The errors live in the domain (thrown there); views and the transport take them from here too.
export * from '../domain/errors.ts';

function sendError(req: Request, res: Response, error: JsonableError | AppError): void {
  closeIfBodyLeftUnread(req, res);
  const extra = error instanceof JsonableError ? error.extra : {};
  const code = error instanceof JsonableError ? error.code : error.code.toUpperCase();
  res
    .set(error.headers)
    .status(error.status)
    .json({ result: 'error', msg: error.message, code, ...extra });
}

/** Maps every failure to the envelope; anything unexpected is logged and becomes a 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (error instanceof AppError) return sendError(req, res, error);
    const busy = databaseUnavailable(error);
    if (busy) return sendError(req, res, busy);
    const status = (error as { status?: number; type?: string }).status;
    if (status && status >= 400 && status < 500) {
      // Express's own refusals (a path parameter that is not valid percent-encoding) are the client's fault.
      return sendError(req, res, new JsonableError('Malformed request', { status }));
    }
    requestLog(res, logger).error({ err: error }, 'unhandled error in chat-api');
    sendError(
      req,
      res,
      new JsonableError('Internal server error', { status: 500, code: 'INTERNAL_SERVER_ERROR' }),
    );
  };
}
