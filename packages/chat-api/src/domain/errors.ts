import { AppError } from '@muse/core';

/**
 * An error the messaging API reports in Zulip's envelope: `{result: "error", msg, code, ...extra}`
 * (Zulip's JsonableError). Views and domain code throw it; http/errors.ts is the one place that
 * turns it into a response.
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
/** Zulip's `require_member_or_admin`: endpoints only a person may call (a bot creating bots, say). */
export const botRequestRefused = () => new JsonableError('This endpoint does not accept bot requests.');
export const adminRequired = () => new JsonableError('Must be an organization administrator');
export const ownerRequired = () => new JsonableError('Must be an organization owner');
