/** Statuses worth another try: the request timed out, was throttled, or the server was briefly unable. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504, 529]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

export interface BackoffOptions {
  /** First backoff ceiling in ms; doubles with each retry. */
  baseDelayMs: number;
  /** Ceiling of any backoff the client picks itself. */
  maxDelayMs: number;
  /** Longest Retry-After the client waits for; a longer one is answered as the error at once. */
  maxRetryAfterMs: number;
  random?: () => number;
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first): the server's Retry-After
 * when it gave one, else exponential backoff with full jitter (uniform in [0, base·2^retry],
 * capped), which spreads clients out instead of retrying in lockstep. `null`: do not retry
 * (the server asked for longer than `maxRetryAfterMs`).
 */
export function retryDelayMs(
  retry: number,
  retryAfter: string | null,
  options: BackoffOptions,
  now = Date.now(),
): number | null {
  const asked = retryAfter === null ? null : parseRetryAfterMs(retryAfter, now);
  if (asked !== null) return asked > options.maxRetryAfterMs ? null : asked;
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor((options.random ?? Math.random)() * ceiling);
}

/** Retry-After as delay-seconds or an HTTP date; `null` when it is neither. */
export function parseRetryAfterMs(value: string, now = Date.now()): number | null {
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // An HTTP date names its weekday and month; this keeps Date.parse from reading "-3" as a year.
  const date = /[a-z]{3}/i.test(trimmed) ? Date.parse(trimmed) : NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
