import { ApiError, ConnectionError, TimeoutError, type ApiErrorInit } from '../errors.ts';
import { isRetryableStatus, retryDelayMs, type BackoffOptions } from './retry-policy.ts';
import { sleep } from './sleep.ts';

export interface TransportOptions {
  /** Further tries after the first (default 2). */
  maxRetries: number;
  /** Milliseconds for one try, from sending to the last byte of the answer (default 60 000). */
  timeoutMs: number;
  backoff: BackoffOptions;
  fetch: typeof globalThis.fetch;
  /** The API's typed error for a non-2xx answer. */
  toError(base: Omit<ApiErrorInit, 'code' | 'message'>, body: unknown): ApiError;
}

/** Per-call settings, given next to `params`/`body` in a call (openapi-fetch puts them on the Request). */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout (ms) for this call. */
  timeout?: number;
  /** Overrides the client's retry count for this call. */
  maxRetries?: number;
}

export type Transport = (request: Request) => Promise<Response>;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The fetch every call goes through: retries with backoff, a timeout that covers the body,
 * the caller's AbortSignal (also during a backoff), typed errors for non-2xx answers. JSON and
 * error answers are read completely inside the try, so a body that stalls or breaks is retried
 * like a refused connection; other content is handed over as a stream that the timeout keeps covering.
 */
export function createTransport(options: TransportOptions): Transport {
  return async function send(request) {
    const maxRetries = callOption(request, 'maxRetries') ?? options.maxRetries;
    const timeoutMs = callOption(request, 'timeout') ?? options.timeoutMs;
    // Read once so every try sends the same bytes (a Request's body can be consumed only once).
    const body = request.body === null ? undefined : await request.arrayBuffer();
    for (let retry = 0; ; retry++) {
      try {
        return await attempt(options, request, body, timeoutMs);
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason;
        const delay = retry < maxRetries && isRetryable(error) ? backoffFor(error, retry, options) : null;
        if (delay === null) throw error;
        await sleep(delay, request.signal);
      }
    }
  };
}

async function attempt(
  options: TransportOptions,
  request: Request,
  body: ArrayBuffer | undefined,
  timeoutMs: number,
): Promise<Response> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new TimeoutError(`${describe(request)}: no complete answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const signal = AbortSignal.any([request.signal, timeout.signal]);
  const failure = (error: unknown) => translateFailure(error, request, timeout.signal);
  let streaming = false;
  try {
    const response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      signal,
      redirect: request.redirect,
      credentials: request.credentials,
    });
    if (response.ok && response.body && !isJson(response)) {
      streaming = true;
      return streamed(response, () => clearTimeout(timer), failure);
    }
    const bytes = await response.arrayBuffer();
    if (response.ok) return new Response(bytes.byteLength > 0 ? bytes : null, response);
    const requestId = response.headers.get(REQUEST_ID_HEADER) ?? request.headers.get(REQUEST_ID_HEADER);
    throw options.toError(
      { status: response.status, requestId, headers: response.headers },
      parseJson(bytes),
    );
  } catch (error) {
    throw error instanceof ApiError ? error : failure(error);
  } finally {
    if (!streaming) clearTimeout(timer);
  }
}

/** The caller's abort stays their reason; our timeout becomes TimeoutError; the rest ConnectionError. */
function translateFailure(error: unknown, request: Request, timeout: AbortSignal): unknown {
  if (request.signal.aborted) return request.signal.reason;
  if (timeout.aborted) return timeout.reason;
  if (error instanceof ConnectionError) return error;
  const reason =
    error instanceof Error
      ? error.cause instanceof Error
        ? error.cause.message
        : error.message
      : String(error);
  return new ConnectionError(`${describe(request)}: ${reason}`, { cause: error });
}

/** The answer with its body wrapped so that the timeout's timer stops when the body ends or is cancelled. */
function streamed(response: Response, finished: () => void, failure: (error: unknown) => unknown): Response {
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          finished();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finished();
        controller.error(failure(error));
      }
    },
    cancel(reason) {
      finished();
      return reader.cancel(reason);
    },
  });
  return new Response(body, response);
}

function isRetryable(error: unknown): boolean {
  if (error instanceof ApiError) return isRetryableStatus(error.status);
  return error instanceof ConnectionError;
}

function backoffFor(error: unknown, retry: number, options: TransportOptions): number | null {
  const retryAfter = error instanceof ApiError ? error.headers.get('retry-after') : null;
  return retryDelayMs(retry, retryAfter, options.backoff);
}

function isJson(response: Response): boolean {
  return /[/+]json\b/i.test(response.headers.get('content-type') ?? '');
}

function parseJson(bytes: ArrayBuffer): unknown {
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function callOption(request: Request, name: keyof CallOptions): number | undefined {
  const value: unknown = Reflect.get(request, name);
  return typeof value === 'number' ? value : undefined;
}

function describe(request: Request): string {
  return `${request.method} ${request.url}`;
}
