import type { MigrationContext } from '@muse/core';

/**
 * Login state and administrator-managed configuration:
 * - `rate_limits`: fixed-window counters shared by every API process (SMS pumping, login attempts);
 * - `verification_codes`: at most one live code per number, stored as an HMAC, never in clear;
 * - `verification_code_providers`: SMS/voice providers; `secrets` is write-only through the API;
 * - `payment_api`: the single payment-provider configuration record.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE content.rate_limits (
      bucket text NOT NULL,
      key text NOT NULL,
      window_start timestamptz NOT NULL,
      window_seconds integer NOT NULL CHECK (window_seconds > 0),
      count integer NOT NULL DEFAULT 1,
      PRIMARY KEY (bucket, key, window_start)
    );
    CREATE INDEX rate_limits_expiry ON content.rate_limits (window_start);

    CREATE TABLE content.verification_codes (
      phone text PRIMARY KEY CHECK (phone ~ '^1[3-9][0-9]{9}$'),
      code_hash text NOT NULL,
      code_type text NOT NULL CHECK (code_type IN ('sms', 'voice')),
      sent_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      failed_attempts integer NOT NULL DEFAULT 0
    );

    CREATE TABLE content.verification_code_providers (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
      type text NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      priority integer NOT NULL DEFAULT 100,
      config jsonb NOT NULL DEFAULT '{}',
      secrets jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX verification_code_providers_order ON content.verification_code_providers (priority, created_at);

    CREATE TABLE content.payment_api (
      id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
      settings jsonb NOT NULL DEFAULT '{}',
      secrets jsonb NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO content.payment_api (id) VALUES (1);

    CREATE INDEX users_created ON content.users (created_at DESC, id DESC);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP INDEX content.users_created;
    DROP TABLE content.payment_api;
    DROP TABLE content.verification_code_providers;
    DROP TABLE content.verification_codes;
    DROP TABLE content.rate_limits;
  `);
}
