import type { Transaction } from 'sequelize';
import { hitRateLimit, RateLimitedError, type Sequelize, exec, one, transact } from '@muse/core';
import type { ServerSettings } from '../server-config/server-config.ts';
import type { CodeHasher } from './code-hasher.ts';

export type CodeType = 'sms' | 'voice';

const DAY = 24 * 3600;
/** A number's codes from all addresses together: a bound on what one number costs in messages. */
const ALL_ADDRESSES_FACTOR = 5;

/**
 * Stores a new code for `phone`, replacing the previous one, unless the number is inside its
 * cool-down (429 with Retry-After), counted from the last send whatever became of that code, or
 * a daily cap is used up (429). The per-number cap counts per number and client address, so
 * requests from someone else's address cannot use up the owner's codes; all addresses together
 * get ALL_ADDRESSES_FACTOR times that, and each address has its own cap over all numbers.
 * All in one transaction: a refused request leaves the previous code and the counters as they were.
 */
export async function storeNewCode(
  db: Sequelize,
  hasher: CodeHasher,
  request: { phone: string; codeType: CodeType; ip: string },
  settings: ServerSettings,
): Promise<{ code: string; codeHash: string }> {
  const code = hasher.generate();
  const codeHash = hasher.hash(request.phone, code);
  await transact(db, async (transaction) => {
    const stored = await one<{ phone: string }>(
      db,
      `INSERT INTO content.verification_codes AS c (phone, code_hash, code_type, sent_at, expires_at)
       VALUES (:phone, :codeHash, :codeType, now(), now() + make_interval(secs => :ttl))
       ON CONFLICT (phone) DO UPDATE
         SET code_hash = EXCLUDED.code_hash, code_type = EXCLUDED.code_type, sent_at = now(),
             expires_at = EXCLUDED.expires_at, failed_attempts = 0
         WHERE c.sent_at <= now() - make_interval(secs => :cooldown)
       RETURNING phone`,
      {
        phone: request.phone,
        codeHash,
        codeType: request.codeType,
        ttl: settings.code_ttl_seconds,
        cooldown: settings.code_cooldown_seconds,
      },
      transaction,
    );
    if (!stored) await refuseInsideCooldown(db, transaction, request.phone, settings.code_cooldown_seconds);
    await hitRateLimit(
      db,
      'content',
      {
        bucket: 'code:phone',
        key: `${request.phone}@${request.ip}`,
        windowSeconds: DAY,
        max: settings.codes_per_phone_per_day,
        describe: 'This number requested too many codes today',
      },
      transaction,
    );
    await hitRateLimit(
      db,
      'content',
      {
        bucket: 'code:phone:all',
        key: request.phone,
        windowSeconds: DAY,
        max: settings.codes_per_phone_per_day * ALL_ADDRESSES_FACTOR,
        describe: 'This number requested too many codes today',
      },
      transaction,
    );
    await hitRateLimit(
      db,
      'content',
      {
        bucket: 'code:ip',
        key: request.ip,
        windowSeconds: DAY,
        max: settings.codes_per_ip_per_day,
        describe: 'Too many codes were requested from this address today',
      },
      transaction,
    );
  });
  return { code, codeHash };
}

async function refuseInsideCooldown(
  db: Sequelize,
  transaction: Transaction,
  phone: string,
  cooldown: number,
): Promise<never> {
  const row = await one<{ wait: number }>(
    db,
    `SELECT extract(epoch FROM (sent_at + make_interval(secs => :cooldown) - now()))::float AS wait
       FROM content.verification_codes WHERE phone = :phone`,
    { phone, cooldown },
    transaction,
  );
  throw new RateLimitedError('A code was sent to this number moments ago', row?.wait ?? cooldown);
}

/** Withdraws a code that could not be delivered: it no longer logs in; its send still counts for the cool-down. */
export async function withdrawCode(db: Sequelize, phone: string, codeHash: string): Promise<void> {
  await exec(
    db,
    `UPDATE content.verification_codes SET expires_at = '-infinity' WHERE phone = :phone AND code_hash = :codeHash`,
    { phone, codeHash },
  );
}

export type CodeCheck = 'accepted' | 'wrong' | 'missing_or_expired';

/**
 * Checks a typed code inside `transaction` (the row stays locked until it ends, so two
 * concurrent logins cannot both use one code). A right code is consumed; a wrong one counts
 * an attempt, and the code is invalidated after `maxAttempts` wrong tries.
 */
export async function consumeCode(
  db: Sequelize,
  transaction: Transaction,
  hasher: CodeHasher,
  phone: string,
  code: string,
  maxAttempts: number,
): Promise<CodeCheck> {
  const row = await one<{ code_hash: string; failed_attempts: number; live: boolean }>(
    db,
    `SELECT code_hash, failed_attempts, expires_at > now() AS live
       FROM content.verification_codes WHERE phone = :phone FOR UPDATE`,
    { phone },
    transaction,
  );
  if (!row || !row.live) return 'missing_or_expired';
  if (hasher.matches(phone, code, row.code_hash)) {
    await spendCode(db, transaction, phone);
    return 'accepted';
  }
  if (row.failed_attempts + 1 >= maxAttempts) {
    await spendCode(db, transaction, phone);
  } else {
    await exec(
      db,
      'UPDATE content.verification_codes SET failed_attempts = failed_attempts + 1 WHERE phone = :phone',
      { phone },
      transaction,
    );
  }
  return 'wrong';
}

/** A used or exhausted code stops working; the row stays, so its `sent_at` keeps the cool-down. */
async function spendCode(db: Sequelize, transaction: Transaction, phone: string): Promise<void> {
  await exec(
    db,
    `UPDATE content.verification_codes SET expires_at = '-infinity' WHERE phone = :phone`,
    { phone },
    transaction,
  );
}
