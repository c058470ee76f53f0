import { describe, expect, it } from 'vitest';
import { isRetryableStatus, parseRetryAfterMs, retryDelayMs } from '../src/transport/retry-policy.ts';

const backoff = { baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 30_000 };

describe('retry policy', () => {
  it('retries exactly 408, 429, 500, 502, 503, 504 and 529', () => {
    const retryable = Array.from({ length: 500 }, (_, i) => i + 100).filter(isRetryableStatus);
    expect(retryable).toEqual([408, 429, 500, 502, 503, 504, 529]);
  });

  it('backs off exponentially with full jitter: uniform in [0, base·2^retry], capped', () => {
    const highest = (retry: number) => retryDelayMs(retry, null, { ...backoff, random: () => 0.999999 });
    expect([0, 1, 2, 3, 4, 5, 10].map(highest)).toEqual([499, 999, 1999, 3999, 7999, 7999, 7999]);
    expect(retryDelayMs(3, null, { ...backoff, random: () => 0 })).toBe(0);
    expect(retryDelayMs(2, null, { ...backoff, random: () => 0.5 })).toBe(1000);
  });

  it('honours Retry-After in seconds or as an HTTP date, instead of its own backoff', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelayMs(0, '7', backoff, now)).toBe(7_000);
    expect(retryDelayMs(0, '1.5', backoff, now)).toBe(1_500);
    expect(retryDelayMs(0, 'Thu, 01 Jan 2026 00:00:12 GMT', backoff, now)).toBe(12_000);
    expect(retryDelayMs(0, 'Wed, 31 Dec 2025 23:00:00 GMT', backoff, now)).toBe(0);
  });

  it('gives up when Retry-After asks for longer than maxRetryAfter, and ignores a malformed one', () => {
    expect(retryDelayMs(0, '31', backoff)).toBeNull();
    expect(retryDelayMs(0, 'soon', { ...backoff, random: () => 0.5 })).toBe(250);
    expect(parseRetryAfterMs('-3')).toBeNull();
  });
});
