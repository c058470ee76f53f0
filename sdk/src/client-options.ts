import type { ApiError, ApiErrorInit } from './errors.ts';
import { createTransport, type ClientHooks, type Transport } from './transport/transport.ts';

/** This package's version, sent in the User-Agent (a test keeps it equal to package.json's). */
export const SDK_VERSION = '0.1.0';

/** What both clients accept. */
export interface ClientOptions {
  /** The API's root, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Further tries after a network error, a timeout or a 408/429/500/502/503/504/529 answer (default 2). */
  maxRetries?: number;
  /** Milliseconds one try may take, reading the whole answer included (default 60 000). */
  timeout?: number;
  /** First backoff ceiling in ms, doubled on each retry, with full jitter (default 500). */
  retryBaseDelay?: number;
  /** Ceiling of the client's own backoff in ms (default 8 000). */
  maxRetryDelay?: number;
  /** Longest `Retry-After` (ms) the client waits out; a longer one is thrown at once (default 30 000). */
  maxRetryAfter?: number;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** `User-Agent` of every call (default `muse-sdk/<version>`; browsers may send their own instead). */
  userAgent?: string;
  /** Called around every try: `onRequest`, `onResponse`, `onRetry`. */
  hooks?: ClientHooks;
}

export function transportFor(
  options: ClientOptions,
  toError: (base: Omit<ApiErrorInit, 'code' | 'message'>, body: unknown) => ApiError,
  prepare: (headers: Headers) => void,
): Transport {
  return createTransport({
    maxRetries: options.maxRetries ?? 2,
    timeoutMs: options.timeout ?? 60_000,
    backoff: {
      baseDelayMs: options.retryBaseDelay ?? 500,
      maxDelayMs: options.maxRetryDelay ?? 8_000,
      maxRetryAfterMs: options.maxRetryAfter ?? 30_000,
    },
    // Looked up per call, so a fetch patched after the client was made (tests, polyfills) is used.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    toError,
    prepare: (headers) => {
      if (!headers.has('user-agent'))
        headers.set('User-Agent', options.userAgent ?? `muse-sdk/${SDK_VERSION}`);
      prepare(headers);
    },
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
}
