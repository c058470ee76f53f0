import type { Sequelize, Transaction } from 'sequelize';
import { RateLimitedError } from './errors.ts';
import { exec, one } from './sql.ts';

/** One counter: `bucket` says what is limited (e.g. `login:ip`), `key` whose hits it counts. */
export interface RateLimit {
  bucket: string;
  key: string;
  windowSeconds: number;
  max: number;
  /** Says what was refused, for the 429 message. */
  describe: string;
}

/** Where a counter stands after a hit that was let through. */
export interface RateLimitState {
  /** Hits the window still allows. */
  remaining: number;
  /** Seconds until the window ends and the count starts again. */
  resetSeconds: number;
}

/**
 * Counts one hit against a fixed-window counter kept in `<schema>.rate_limits`, so the limit
 * holds across any number of API processes: the upsert is atomic, and the row lock serialises
 * concurrent hits. A window opens at its first hit and lasts `windowSeconds`; beyond `max` hits
 * in it, throws 429 (RateLimitedError) with the seconds left until it ends; otherwise answers
 * where the counter stands (for headers such as `X-RateLimit-Remaining`). Each service keeps the
 * table in its own schema (both created by their migrations with the same columns).
 */
export async function hitRateLimit(
  db: Sequelize,
  schema: 'content' | 'chat',
  limit: RateLimit,
  transaction?: Transaction,
): Promise<RateLimitState> {
  const table = `${schema}.rate_limits`;
  const row = await one<{ count: number; retry_after: number }>(
    db,
    `INSERT INTO ${table} AS r (bucket, key, window_start, window_seconds, count)
     VALUES (:bucket, :key, now(), :window, 1)
     ON CONFLICT (bucket, key) DO UPDATE SET
       count = CASE WHEN r.window_start + make_interval(secs => r.window_seconds) <= now() THEN 1 ELSE r.count + 1 END,
       window_start = CASE WHEN r.window_start + make_interval(secs => r.window_seconds) <= now() THEN now()
                           ELSE r.window_start END,
       window_seconds = EXCLUDED.window_seconds
     RETURNING count, extract(epoch FROM (window_start + make_interval(secs => window_seconds) - now()))::float AS retry_after`,
    { bucket: limit.bucket, key: limit.key, window: limit.windowSeconds },
    transaction,
  );
  if (row!.count > limit.max)
    throw new RateLimitedError(`${limit.describe}; try again later`, row!.retry_after);
  return { remaining: limit.max - row!.count, resetSeconds: row!.retry_after };
}

/** Takes back one hit (an attempt that turned out legitimate, e.g. the right password). */
export async function forgiveRateLimitHit(
  db: Sequelize,
  schema: 'content' | 'chat',
  limit: Pick<RateLimit, 'bucket' | 'key'>,
): Promise<void> {
  await exec(
    db,
    `UPDATE ${schema}.rate_limits SET count = count - 1 WHERE bucket = :bucket AND key = :key AND count > 0`,
    { bucket: limit.bucket, key: limit.key },
  );
}

/** Drops counters whose window ended over an hour ago; cheap, called now and then. */
export async function pruneRateLimits(db: Sequelize, schema: 'content' | 'chat'): Promise<void> {
  await exec(
    db,
    `DELETE FROM ${schema}.rate_limits WHERE window_start + make_interval(secs => window_seconds) < now() - interval '1 hour'`,
  );
}
