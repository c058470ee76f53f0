import type { Socket } from 'node:net';
import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError, databaseUnavailable, requestLog, type Logger } from '@muse/core';
import { JsonableError } from '../domain/errors.ts';

// The errors live in the domain (thrown there); views and the transport take them from here too.
export * from '../domain/errors.ts';

/** Unread body bytes Node may read off the wire to keep the connection (Go's net/http drains as much). */
const DRAIN_BYTES = 256 * 1024;
/** After such an answer, how long a client still sending may go on before the connection is cut. */
const LINGER_MS = 500;

/**
 * An error answered before the body was read (401, 404, 413, a refused form) leaves the rest
 * unread; Node would read it all off the wire to reuse the connection.
 */
function leavesBodyUnread(req: Request): boolean {
  if (req.complete) return false;
  const length = Number(req.headers['content-length'] ?? 0);
  return req.headers['transfer-encoding'] !== undefined || length > DRAIN_BYTES;
}

/**
 * Past a little, the connection is closed after the answer instead, so a stranger's 40 MiB cost
 * nothing. Node closes such a connection at once (`destroySoon`), and a close with unread bytes
 * is a reset that may reach a client still sending before it read the answer; so, as Apache and
 * nginx do (lingering close), the answer is followed by a half-close, and what still arrives is
 * dropped for a moment (LINGER_MS) before the connection is cut.
 */
function closeAfterAnswer(req: Request, res: Response): void {
  res.set('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon(): void };
  socket.destroySoon = () => {
    socket.end();
    // Node's HTTP parser drops the body of an answered request (it was dumped) without copying it.
    req.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

function sendError(req: Request, res: Response, error: JsonableError | AppError): void {
  if (leavesBodyUnread(req)) closeAfterAnswer(req, res);
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
