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
  /** Adds the API's credentials and the like to a call's headers (once per call, not per try). */
  prepare?(headers: Headers): void;
  hooks?: ClientHooks;
}

/** A try of a call, as the hooks see it; `attempt` counts from 0. */
export interface RequestHookInfo {
  method: string;
  url: string;
  headers: Headers;
  attempt: number;
}

export interface ResponseHookInfo extends RequestHookInfo {
  /** The answer, its body not read yet (it is the SDK's to read). */
  response: Response;
  durationMs: number;
}

export interface RetryHookInfo extends RequestHookInfo {
  /** What this try ended with: an ApiError of a retryable status, or a ConnectionError. */
  error: unknown;
  /** How long the client waits before the next try. */
  delayMs: number;
}

/**
 * Called around every try of every call (logging, metrics, tracing). They run inside the call:
 * one that throws fails the call, so keep them small.
 */
export interface ClientHooks {
  /** Before a try is sent; the headers may still be changed. */
  onRequest?(request: RequestHookInfo): void;
  /** When an HTTP answer's head arrives, whatever its status. */
  onResponse?(response: ResponseHookInfo): void;
  /** Before the client waits to try again. */
  onRetry?(retry: RetryHookInfo): void;
}

/** Per-call settings, given next to `params`/`body` in a call. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout (ms) for this call. */
  timeout?: number;
  /** Overrides the client's retry count for this call. */
  maxRetries?: number;
}

/** One call as the transport sends it; the body must be re-sendable (not a stream) for retries. */
export interface OutgoingRequest extends CallOptions {
  url: string;
  method: string;
  headers: Headers;
  body?: RequestInit['body'];
  /**
   * How to read a 2xx answer (openapi-fetch's `parseAs`): `json` (default; text when it is not
   * JSON), `text`, `blob`, `arrayBuffer`, or `stream` — handed over with the timeout still covering it.
   */
  parseAs?: 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';
}

export interface TransportAnswer {
  /** The parsed JSON (else the text), or what `parseAs` asked for; undefined for an empty JSON body. */
  data: unknown;
  response: Response;
}

export type Transport = (request: OutgoingRequest) => Promise<TransportAnswer>;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The fetch every call goes through: retries with backoff, a timeout that covers the body,
 * the caller's AbortSignal (also during a backoff), typed errors for non-2xx answers. Answers
 * are read completely inside the try, so a body that stalls or breaks is retried like a refused
 * connection; a stream asked for is handed over with the timeout still covering it.
 */
export function createTransport(options: TransportOptions): Transport {
  return async function send(request) {
    options.prepare?.(request.headers);
    // One id per call, kept across its retries, so the server's logs and our errors name the same request.
    if (!request.headers.has(REQUEST_ID_HEADER)) request.headers.set(REQUEST_ID_HEADER, crypto.randomUUID());
    const maxRetries = request.maxRetries ?? options.maxRetries;
    for (let retry = 0; ; retry++) {
      try {
        return await attempt(options, request, retry);
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason;
        const delay = retry < maxRetries && isRetryable(error) ? backoffFor(error, retry, options) : null;
        if (delay === null) throw error;
        options.hooks?.onRetry?.({ ...tryInfo(request, retry), error, delayMs: delay });
        await sleep(delay, request.signal);
      }
    }
  };
}

function tryInfo(request: OutgoingRequest, attempt: number): RequestHookInfo {
  return { method: request.method, url: request.url, headers: request.headers, attempt };
}

async function attempt(
  options: TransportOptions,
  request: OutgoingRequest,
  retry: number,
): Promise<TransportAnswer> {
  const timeoutMs = request.timeout ?? options.timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(new TimeoutError(`${describe(request)}: no complete answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  // The caller's abort reaches this try through the same controller (cheaper than AbortSignal.any).
  const forwardAbort = () => controller.abort(request.signal!.reason);
  request.signal?.addEventListener('abort', forwardAbort, { once: true });
  const finished = () => {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', forwardAbort);
  };
  const failure = (error: unknown) => translateFailure(error, request, controller.signal);
  let streaming = false;
  try {
    options.hooks?.onRequest?.(tryInfo(request, retry));
    const sent = Date.now();
    const response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal: controller.signal,
    });
    options.hooks?.onResponse?.({ ...tryInfo(request, retry), response, durationMs: Date.now() - sent });
    if (response.ok && request.parseAs === 'stream' && response.body) {
      streaming = true;
      return { data: streamed(response, finished, failure), response };
    }
    if (response.ok && (request.parseAs === 'blob' || request.parseAs === 'arrayBuffer'))
      return { data: await response[request.parseAs](), response };
    const text = await response.text();
    if (response.ok && request.parseAs === 'text') return { data: text, response };
    const data = parseBody(text, response);
    if (response.ok) return { data, response };
    const requestId = response.headers.get(REQUEST_ID_HEADER) ?? request.headers.get(REQUEST_ID_HEADER);
    throw options.toError({ status: response.status, requestId, headers: response.headers }, data);
  } catch (error) {
    throw error instanceof ApiError ? error : failure(error);
  } finally {
    if (!streaming) finished();
  }
}

/** The caller's abort stays their reason; our timeout becomes TimeoutError; the rest ConnectionError. */
function translateFailure(error: unknown, request: OutgoingRequest, attempt: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason;
  if (attempt.aborted) return attempt.reason;
  if (error instanceof ConnectionError) return error;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ConnectionError(`${describe(request)}: ${reason}`, { cause: error });
}

/** The body as a stream whose end (or cancel) stops the timeout's timer. */
function streamed(
  response: Response,
  finished: () => void,
  failure: (error: unknown) => unknown,
): ReadableStream<Uint8Array> {
  const reader = response.body!.getReader();
  return new ReadableStream<Uint8Array>({
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
}

function parseBody(text: string, response: Response): unknown {
  if (text === '') return undefined;
  if (!/[/+]json\b/i.test(response.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRetryable(error: unknown): boolean {
  if (error instanceof ApiError) return isRetryableStatus(error.status);
  return error instanceof ConnectionError;
}

function backoffFor(error: unknown, retry: number, options: TransportOptions): number | null {
  const retryAfter = error instanceof ApiError ? error.headers.get('retry-after') : null;
  return retryDelayMs(retry, retryAfter, options.backoff);
}

function describe(request: OutgoingRequest): string {
  return `${request.method} ${request.url}`;
}
