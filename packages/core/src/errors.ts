/**
 * Errors that both APIs understand. Handlers throw them; each API maps them to its own
 * envelope in one place (the content service's JSON error body, Zulip's result/msg/code).
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: unknown) {
    super(400, 'bad_request', message, { details });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required', challenge = 'Bearer') {
    super(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': challenge } });
  }
}

export class PaymentRequiredError extends AppError {
  constructor(message: string, details?: unknown) {
    super(402, 'insufficient_balance', message, { details });
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden') {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: unknown) {
    super(409, 'conflict', message, { details });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: unknown) {
    super(422, 'validation_error', message, { details });
  }
}

export class RateLimitedError extends AppError {
  /** Whole seconds until the limit lets a request through again (at least 1). */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, 'rate_limited', message, {
      headers: { 'Retry-After': String(seconds) },
      details: { retry_after: seconds },
    });
    this.retryAfterSeconds = seconds;
  }
}

export class NotImplementedError extends AppError {
  constructor(message: string) {
    super(501, 'not_implemented', message);
  }
}

/** Temporarily unable to serve (an overloaded dependency); the client should retry after the pause. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, 'service_unavailable', message, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}
