import type { Transaction } from 'sequelize';
import { type Sequelize, exec, one } from '@muse/core';

/**
 * Runtime settings an administrator changes without a restart. Only values that differ from
 * the defaults are stored, so a new setting needs no data migration. Every process reads the
 * row from Postgres, so all API pods agree.
 */
export type ServerSettings = {
  /** Largest accepted upload, in bytes. */
  max_upload_bytes: number;
  /** Credits a new account starts with. */
  default_credit_quota: number;
  /** Seconds before the same number may request another code. */
  code_cooldown_seconds: number;
  /** Seconds a code stays valid. */
  code_ttl_seconds: number;
  /** Wrong entries after which a code is invalidated. */
  code_max_attempts: number;
  /** Codes one number may request per day. */
  codes_per_phone_per_day: number;
  /** Codes one client IP may request per day. */
  codes_per_ip_per_day: number;
  /** Login attempts per number per hour before 429. */
  login_attempts_per_phone_per_hour: number;
  /** Login attempts per client IP per hour before 429. */
  login_attempts_per_ip_per_hour: number;
};

export const DEFAULT_SERVER_SETTINGS: Readonly<ServerSettings> = {
  max_upload_bytes: 20 * 1024 * 1024,
  default_credit_quota: 100,
  code_cooldown_seconds: 60,
  code_ttl_seconds: 300,
  code_max_attempts: 5,
  codes_per_phone_per_day: 10,
  codes_per_ip_per_day: 50,
  login_attempts_per_phone_per_hour: 10,
  login_attempts_per_ip_per_hour: 100,
};

export async function readServerSettings(db: Sequelize, transaction?: Transaction): Promise<ServerSettings> {
  const row = await one<{ settings: Partial<ServerSettings> }>(
    db,
    'SELECT settings FROM content.server_config WHERE id = 1',
    {},
    transaction,
  );
  return { ...DEFAULT_SERVER_SETTINGS, ...row?.settings };
}

/** Merges `changes` into the stored settings (validation is the caller's: the API's schema). */
export async function updateServerSettings(
  db: Sequelize,
  changes: Partial<ServerSettings>,
  transaction?: Transaction,
): Promise<ServerSettings> {
  await exec(
    db,
    `UPDATE content.server_config SET settings = settings || CAST(:changes AS jsonb), updated_at = now() WHERE id = 1`,
    { changes: JSON.stringify(changes) },
    transaction,
  );
  return readServerSettings(db, transaction);
}
