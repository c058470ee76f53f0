import { QueryTypes, type Transaction } from 'sequelize';
import { RateLimitedError, type Sequelize } from '@muse/core';

export interface RateLimit {
  /** What is limited, e.g. `code:ip`; together with `key` it names one counter. */
  bucket: string;
  key: string;
  windowSeconds: number;
  max: number;
  /** Says what was refused, for the 429 message. */
  describe: string;
}

/**
 * Counts one event against a fixed-window counter kept in Postgres, so the limit holds across
 * any number of API processes: the upsert is atomic, and the row lock serialises concurrent
 * hits. Beyond `max` in the window it throws 429 with the seconds left until the window ends.
 */
export async function hitRateLimit(
  db: Sequelize,
  limit: RateLimit,
  transaction?: Transaction,
): Promise<void> {
  const [row] = await db.query<{ count: number; retry_after: number }>(
    `INSERT INTO content.rate_limits AS r (bucket, key, window_start, window_seconds)
     VALUES (:bucket, :key, to_timestamp(floor(extract(epoch FROM now()) / :window) * :window), :window)
     ON CONFLICT (bucket, key, window_start) DO UPDATE SET count = r.count + 1
     RETURNING count, extract(epoch FROM (r.window_start + make_interval(secs => r.window_seconds) - now()))::float AS retry_after`,
    {
      replacements: { bucket: limit.bucket, key: limit.key, window: limit.windowSeconds },
      type: QueryTypes.SELECT,
      ...(transaction ? { transaction } : {}),
    },
  );
  if (row!.count > limit.max) {
    throw new RateLimitedError(`${limit.describe}; try again later`, row!.retry_after);
  }
}

/** Drops counters whose window ended; cheap, called now and then by the login routes. */
export async function pruneRateLimits(db: Sequelize): Promise<void> {
  await db.query(
    `DELETE FROM content.rate_limits WHERE window_start + make_interval(secs => window_seconds) < now() - interval '1 hour'`,
  );
}
