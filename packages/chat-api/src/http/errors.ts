import type { ErrorRequestHandler, Response } from 'express';
import { AppError, databaseUnavailable, requestLog, type Logger } from '@muse/core';
import { JsonableError } from '../domain/errors.ts';

// The errors live in the domain (thrown there); views and the transport take them from here too.
export * from '../domain/errors.ts';

function sendError(res: Response, error: JsonableError | AppError): void {
  const extra = error instanceof JsonableError ? error.extra : {};
  const code = error instanceof JsonableError ? error.code : error.code.toUpperCase();
  res
    .set(error.headers)
    .status(error.status)
    .json({ result: 'error', msg: error.message, code, ...extra });
}

/** Maps every failure to the envelope; anything unexpected is logged and becomes a 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (error instanceof AppError) return sendError(res, error);
    const busy = databaseUnavailable(error);
    if (busy) return sendError(res, busy);
    const status = (error as { status?: number; type?: string }).status;
    if (status && status >= 400 && status < 500) {
      // Body parser failures (malformed or oversized bodies) are the client's fault.
      return sendError(res, new JsonableError('Malformed request body', { status }));
    }
    requestLog(res, logger).error({ err: error }, 'unhandled error in chat-api');
    sendError(
      res,
      new JsonableError('Internal server error', { status: 500, code: 'INTERNAL_SERVER_ERROR' }),
    );
  };
}
