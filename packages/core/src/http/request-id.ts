import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from '../logger.ts';

/** A caller's id is kept only when it is short, printable and safe to put in a log line or header. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/** The service logger a request's child logger is made from (see requestLog). */
const SERVICE_LOGGER = Symbol('service logger');

/**
 * Names a request: the caller's well-formed `X-Request-Id`, else a new UUID. It is sent back in
 * the `X-Request-Id` header and carried by the request's child logger (`requestLog(res)`), so
 * every log line of the request, errors included, names it. Called by the service app's first
 * middleware for every request.
 */
export function nameRequest(req: Request, res: Response, logger: Logger): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  res.locals.requestId = id;
  (res.locals as Record<symbol, unknown>)[SERVICE_LOGGER] = logger;
}

/**
 * The logger of the request `res` answers: the service logger's child naming its request id, made
 * when the request first logs (most never do, and a child logger costs more than the rest of this
 * middleware).
 */
export function requestLog(res: Pick<Response, 'locals'>, fallback: Logger): Logger {
  const locals = res.locals as Record<string | symbol, unknown>;
  if (locals.log) return locals.log as Logger;
  if (typeof locals.requestId !== 'string') return fallback;
  const logger = (locals[SERVICE_LOGGER] as Logger | undefined) ?? fallback;
  return (locals.log = logger.child({ requestId: locals.requestId }));
}

type OpenApiResponse = { $ref?: string; headers?: Record<string, unknown> };
type OpenApiDocument = {
  paths: Record<string, unknown>;
  components?: Record<string, Record<string, unknown> | undefined>;
};

const HEADER = {
  description:
    "Names the request in the server's logs. A caller's X-Request-Id of 1 to 128 letters, digits and " +
    '`._:-` is echoed; otherwise the server generates a UUID.',
  schema: { type: 'string', pattern: WELL_FORMED.source },
};

/**
 * Documents the X-Request-Id header on every response of a service's document (as the component
 * `headers.RequestId`), since `nameRequest()` sends it on every answer.
 */
export function documentRequestId<D extends OpenApiDocument>(document: D): D {
  const components = (document.components ??= {});
  (components.headers ??= {}).RequestId = HEADER;
  const tag = (response: OpenApiResponse) => {
    if (response.$ref) return; // the shared response it names is tagged below
    response.headers = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' }, ...response.headers };
  };
  for (const item of Object.values(document.paths) as Record<string, { responses?: object }>[]) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses ?? {})) tag(response as OpenApiResponse);
    }
  }
  for (const response of Object.values(components.responses ?? {})) tag(response as OpenApiResponse);
  return document;
}
