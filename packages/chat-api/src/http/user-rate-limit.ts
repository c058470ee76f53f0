import type { RequestHandler, Response } from 'express';
import { hitRateLimit, RateLimitedError } from '@muse/core';
import type { Actor } from '../domain/context.ts';
import type { ChatRuntime } from '../views/context.ts';
import { rateLimited } from './errors.ts';

/** Reads: never counted (an event queue's long poll would use the budget up). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Zulip's rate-limit headers; `X-RateLimit-Reset` is when the window ends, in Unix seconds. */
function setHeaders(res: Response, limit: number, remaining: number, resetSeconds: number): void {
  res.set({
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, remaining)),
    'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000 + resetSeconds)),
  });
}

/**
 * Zulip's per-user limit (`api_by_user`), on the messaging API's writes: each authenticated
 * caller's POST, PATCH, PUT and DELETE requests are counted in a fixed window by core's rate
 * limiter (in Postgres, so every process shares the count), MUSE_CHAT_USER_WRITES per
 * MUSE_CHAT_USER_WRITES_WINDOW_SECONDS (0: no limit). Past it the request is refused before its
 * view runs: 429 RATE_LIMIT_HIT with `retry-after`, as Zulip answers. Every counted answer carries
 * the X-RateLimit-* headers. Runs after authentication (`res.locals.actor`).
 */
export function limitUserWrites(runtime: ChatRuntime): RequestHandler {
  const { MUSE_CHAT_USER_WRITES: max, MUSE_CHAT_USER_WRITES_WINDOW_SECONDS: windowSeconds } = runtime.config;
  return async (req, res, next) => {
    if (max === 0 || READS.has(req.method)) return next();
    const { user } = res.locals.actor as Actor;
    try {
      const state = await hitRateLimit(runtime.db, 'chat', {
        bucket: 'api_by_user:writes',
        key: String(user.id),
        max,
        windowSeconds,
        describe: 'API usage exceeded rate limit',
      });
      setHeaders(res, max, state.remaining, state.resetSeconds);
      next();
    } catch (error) {
      if (!(error instanceof RateLimitedError)) return next(error);
      setHeaders(res, max, 0, error.retryAfterSeconds);
      next(rateLimited(error.retryAfterSeconds));
    }
  };
}
