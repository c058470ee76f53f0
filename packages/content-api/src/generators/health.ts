import { AppError, type Sequelize, exec, one } from '@muse/core';
import type { GeneratorRow } from './generators.ts';

/**
 * The health of each generator's upstream, kept in Postgres so every API process and worker
 * shares it: when an upstream answers 429, it is left alone for its Retry-After, and submits to
 * that generator answer 529 meanwhile instead of charging a task that would only be refunded.
 */

/** How long an upstream is left alone after a 429 without a usable Retry-After. */
export const DEFAULT_RATE_LIMIT_SECONDS = 30;
/** The longest pause an upstream's Retry-After can impose on a generator. */
export const MAX_RATE_LIMIT_SECONDS = 3600;

/** Records that the generator's upstream rate-limited a call; a later deadline never shortens an earlier one. */
export async function noteRateLimited(
  db: Sequelize,
  generatorId: string,
  retryAfterSeconds: number | undefined,
): Promise<void> {
  const seconds = Math.min(
    MAX_RATE_LIMIT_SECONDS,
    Math.ceil(retryAfterSeconds ?? DEFAULT_RATE_LIMIT_SECONDS),
  );
  await exec(
    db,
    `INSERT INTO content.generator_health (generator_id, rate_limited_until)
     VALUES (:generatorId, now() + make_interval(secs => :seconds))
     ON CONFLICT (generator_id) DO UPDATE SET
       rate_limited_until = GREATEST(content.generator_health.rate_limited_until, EXCLUDED.rate_limited_until),
       updated_at = now()`,
    { generatorId, seconds },
  );
}

/** A generator with the whole seconds its upstream still asks to be left alone (0 when healthy). */
export type GeneratorWithHealth = GeneratorRow & { rate_limited_for: number };

/** The generator and its health in one round trip (the submit path). */
export async function findGeneratorWithHealth(
  db: Sequelize,
  id: string,
): Promise<GeneratorWithHealth | undefined> {
  const row = await one<GeneratorWithHealth>(
    db,
    `SELECT g.*, COALESCE(CAST(CEIL(EXTRACT(EPOCH FROM h.rate_limited_until - now())) AS integer), 0) AS rate_limited_for
       FROM content.generators g
       LEFT JOIN content.generator_health h ON h.generator_id = g.id AND h.rate_limited_until > now()
      WHERE g.id = :id`,
    { id },
  );
  return row;
}

/** The whole seconds the generator's upstream still asks to be left alone (0 when healthy). */
export async function rateLimitedFor(db: Sequelize, generatorId: string): Promise<number> {
  const row = await one<{ seconds: number }>(
    db,
    `SELECT CAST(CEIL(EXTRACT(EPOCH FROM rate_limited_until - now())) AS integer) AS seconds
       FROM content.generator_health WHERE generator_id = :generatorId AND rate_limited_until > now()`,
    { generatorId },
  );
  return row?.seconds ?? 0;
}

/** 529: the upstream is rate limiting; the client should come back after `retryAfterSeconds`. */
export class UpstreamRateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number, details?: unknown) {
    super(529, 'upstream_rate_limited', message, {
      details,
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}
