/** Every error the SDK throws (besides the caller's own abort reason) is a MuseError. */
export class MuseError extends Error {
  override name = 'MuseError';
}

/** The request got no HTTP answer: connection refused or reset, DNS failure, a body cut short. */
export class ConnectionError extends MuseError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No complete answer (headers and body) within the client's `timeout`. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  requestId: string | null;
  headers: Headers;
}

/** An HTTP answer outside 2xx. `requestId` is the X-Request-Id of the request, for the server's logs. */
export class ApiError extends MuseError {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly headers: Headers;
  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

/** The content service's error answer, `{code, message, details?}`; subclasses name the status family. */
export class ContentApiError extends ApiError {
  override name = 'ContentApiError';
  readonly details: unknown;
  constructor(init: ApiErrorInit & { details?: unknown }) {
    super(init);
    this.details = init.details;
  }
}

export class BadRequestError extends ContentApiError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends ContentApiError {
  override name = 'AuthenticationError';
}
export class InsufficientBalanceError extends ContentApiError {
  override name = 'InsufficientBalanceError';
}
export class PermissionDeniedError extends ContentApiError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends ContentApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends ContentApiError {
  override name = 'ConflictError';
}
export class ValidationError extends ContentApiError {
  override name = 'ValidationError';
}
export class RateLimitError extends ContentApiError {
  override name = 'RateLimitError';
  /** Seconds the server asked to wait (Retry-After), when it said. */
  get retryAfter(): number | null {
    return retryAfterOf(this.headers);
  }
}
export class ServerError extends ContentApiError {
  override name = 'ServerError';
}
/**
 * 504: the upstream generation service timed out (a submit that waited, `wait`); the task failed
 * and was refunded, so submitting again (with a new Idempotency-Key) is safe.
 */
export class UpstreamTimeoutError extends ServerError {
  override name = 'UpstreamTimeoutError';
}
/**
 * 529: the upstream generation service is rate limiting. Nothing was charged (or the waited task
 * was refunded); submit again after `retryAfter` seconds.
 */
export class UpstreamRateLimitedError extends ServerError {
  override name = 'UpstreamRateLimitedError';
  /** Seconds the server asked to wait (Retry-After), when it said. */
  get retryAfter(): number | null {
    return retryAfterOf(this.headers);
  }
}

const contentErrorByStatus: Record<number, typeof ContentApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: InsufficientBalanceError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
  429: RateLimitError,
  504: UpstreamTimeoutError,
  529: UpstreamRateLimitedError,
};

/** The typed error of a content-service answer. */
export function contentApiError(
  base: Omit<ApiErrorInit, 'code' | 'message'>,
  body: unknown,
): ContentApiError {
  const fields = (isObject(body) ? body : {}) as { code?: unknown; message?: unknown; details?: unknown };
  const ErrorClass =
    contentErrorByStatus[base.status] ?? (base.status >= 500 ? ServerError : ContentApiError);
  return new ErrorClass({
    ...base,
    code: typeof fields.code === 'string' ? fields.code : `http_${base.status}`,
    message: typeof fields.message === 'string' ? fields.message : `HTTP ${base.status}`,
    details: fields.details,
  });
}

/** The messaging API's error answer, `{result: "error", msg, code, ...}`; `fields` keeps the rest (`queue_id`, `stream_id`, `var_name`, …). */
export class ZulipError extends ApiError {
  override name = 'ZulipError';
  readonly fields: Readonly<Record<string, unknown>>;
  constructor(init: ApiErrorInit & { fields: Record<string, unknown> }) {
    super(init);
    this.fields = init.fields;
  }
}

export function zulipError(base: Omit<ApiErrorInit, 'code' | 'message'>, body: unknown): ZulipError {
  const { result: _result, msg, code, ...fields } = (isObject(body) ? body : {}) as Record<string, unknown>;
  return new ZulipError({
    ...base,
    code: typeof code === 'string' ? code : `HTTP_${base.status}`,
    message: typeof msg === 'string' ? msg : `HTTP ${base.status}`,
    fields,
  });
}

/** A generation's file ended `failed`; `errorMessage` is the file's `error_message` (the task was refunded). */
export class GenerationFailedError extends MuseError {
  override name = 'GenerationFailedError';
  readonly fileId: string;
  readonly errorMessage: string;
  constructor(fileId: string, errorMessage: string | null) {
    super(`Generation of file ${fileId} failed: ${errorMessage ?? 'no reason given'}`);
    this.fileId = fileId;
    this.errorMessage = errorMessage ?? '';
  }
}

/** `files.waitFor` gave up while the file was still pending or processing (it may complete later). */
export class FileWaitTimeoutError extends MuseError {
  override name = 'FileWaitTimeoutError';
  readonly file: { id: string; status: string };
  constructor(file: { id: string; status: string }, timeoutMs: number) {
    super(`File ${file.id} is still ${file.status} after ${Math.round(timeoutMs / 1000)} s`);
    this.file = file;
  }
}

/** A payment ended unpaid: `closed` (expired or closed) or `failed` (the provider refused it). */
export class PaymentNotPaidError extends MuseError {
  override name = 'PaymentNotPaidError';
  readonly payment: { id: string; status: string; failure_reason: string | null };
  constructor(payment: { id: string; status: string; failure_reason: string | null }) {
    super(`Payment ${payment.id} is ${payment.status}: ${payment.failure_reason ?? 'no reason given'}`);
    this.payment = payment;
  }
}

/** `payments.waitFor` gave up while the payment was still pending (it may be paid later). */
export class PaymentTimeoutError extends MuseError {
  override name = 'PaymentTimeoutError';
  readonly payment: { id: string; status: string };
  constructor(payment: { id: string; status: string }, timeoutMs: number) {
    super(`Payment ${payment.id} is still ${payment.status} after ${Math.round(timeoutMs / 1000)} s`);
    this.payment = payment;
  }
}

function retryAfterOf(headers: Headers): number | null {
  const seconds = Number(headers.get('retry-after'));
  return headers.has('retry-after') && Number.isFinite(seconds) ? seconds : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
