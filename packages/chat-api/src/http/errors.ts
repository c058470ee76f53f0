import type { ErrorRequestHandler, Response } from 'express';
import { AppError, databaseUnavailable, requestLog, type Logger } from '@muse/core';

/**
 * An error the messaging API reports in Zulip's envelope: `{result: "error", msg, code, ...extra}`.
 * Views and domain code throw it; `sendError` is the one place that turns it into a response.
 */
export class JsonableError extends AppError {
  readonly extra: Record<string, unknown>;

  constructor(
    msg: string,
    options: {
      code?: string;
      status?: number;
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(options.status ?? 400, options.code ?? 'BAD_REQUEST', msg, { headers: options.headers ?? {} });
    this.extra = options.extra ?? {};
  }
}

/** Zulip answers every 401 of the API with this challenge. */
const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="zulip"' };

export const unauthorized = (msg: string, code = 'UNAUTHORIZED') =>
  new JsonableError(msg, { status: 401, code, headers: CHALLENGE });

export const missingArgument = (name: string) =>
  new JsonableError(`Missing '${name}' argument`, {
    code: 'REQUEST_VARIABLE_MISSING',
    extra: { var_name: name },
  });

export const notFound = (msg: string) => new JsonableError(msg, { status: 404 });

export const rateLimited = (seconds: number) =>
  new JsonableError('API usage exceeded rate limit', {
    status: 429,
    code: 'RATE_LIMIT_HIT',
    extra: { 'retry-after': seconds },
    headers: { 'Retry-After': String(seconds) },
  });

export const insufficientPermission = () => new JsonableError('Insufficient permission');
export const adminRequired = () => new JsonableError('Must be an organization administrator');
export const ownerRequired = () => new JsonableError('Must be an organization owner');

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
