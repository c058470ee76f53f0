import type { ErrorRequestHandler } from 'express';
import {
  AppError,
  closeIfBodyLeftUnread,
  databaseUnavailable,
  requestLog,
  UnacceptableJsonError,
  type Logger,
} from '@muse/core';

/** The content service's error body: `{code, message, details?}` (schema `Error` in openapi.yaml). */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = toAppError(error);
    closeIfBodyLeftUnread(req, res);
    if (appError.status >= 500 && !(error instanceof AppError))
      requestLog(res, logger).error({ err: error }, 'unhandled error');
    res.set(appError.headers);
    const body: Record<string, unknown> = { code: appError.code, message: appError.message };
    if (appError.details !== undefined) body.details = appError.details;
    res.status(appError.status).json(body);
  };
}

interface ValidatorError {
  status: number;
  message: string;
  errors?: { path: string; message: string; errorCode?: string }[];
}

/** Request-validation errors (from the OpenAPI validator) answer 422 with the failing paths. */
function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const busy = databaseUnavailable(error);
  if (busy) return busy;
  if (error instanceof UnacceptableJsonError || (error as { name?: string }).name === 'UnacceptableJsonError')
    return new AppError(422, 'validation_error', (error as Error).message);
  const e = error as Partial<ValidatorError> & { type?: string };
  if (e.type === 'entity.parse.failed')
    return new AppError(400, 'bad_request', 'The request body is not valid JSON');
  if (e.type === 'entity.too.large')
    return new AppError(413, 'payload_too_large', 'The request body is too large');
  switch (e.status) {
    case 400:
      return new AppError(422, 'validation_error', 'The request is not valid', {
        details: (e.errors ?? []).map(({ path, message }) => ({ path, message })),
      });
    case 401:
      return new AppError(401, 'unauthorized', 'Authentication required', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    case 404:
      return new AppError(404, 'not_found', 'Not found');
    case 405:
      return new AppError(405, 'method_not_allowed', e.message ?? 'Method not allowed');
    case 413:
      return new AppError(413, 'payload_too_large', e.message ?? 'Payload too large');
    case 415:
      return new AppError(415, 'unsupported_media_type', e.message ?? 'Unsupported media type');
    default:
      return new AppError(500, 'internal_error', 'Internal server error');
  }
}
