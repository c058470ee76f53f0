import type { Sequelize } from '@muse/core';
import { rateLimited } from '../http/errors.ts';
import { exec, one } from './sql.ts';

/**
 * A fixed-window counter in Postgres, so every API process shares it. Throws 429 with the
 * seconds left in the window once `limit` hits were counted.
 */
export async function hitRateLimit(
  db: Sequelize,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<void> {
  const row = await one<{ count: number; retry: number }>(
    db,
    `INSERT INTO chat.rate_limits (key, window_start, count) VALUES (:key, now(), 1)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN chat.rate_limits.window_start < now() - make_interval(secs => :window) THEN 1
                    ELSE chat.rate_limits.count + 1 END,
       window_start = CASE WHEN chat.rate_limits.window_start < now() - make_interval(secs => :window) THEN now()
                           ELSE chat.rate_limits.window_start END
     RETURNING count,
       CEIL(EXTRACT(EPOCH FROM (window_start + make_interval(secs => :window) - now())))::int AS retry`,
    { key, window: windowSeconds },
  );
  if (row && row.count > limit) throw rateLimited(Math.max(1, row.retry));
}

/** Takes back one hit of `key` (an attempt that turned out legitimate, e.g. the right password). */
export async function forgiveRateLimitHit(db: Sequelize, key: string): Promise<void> {
  await exec(db, 'UPDATE chat.rate_limits SET count = count - 1 WHERE key = :key AND count > 0', { key });
}
