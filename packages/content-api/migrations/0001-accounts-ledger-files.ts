import type { MigrationContext } from '@muse/core';

/**
 * The tables every part of the content service shares: accounts, the credit ledger and files.
 * Money rules live in the schema too, so no code path can break them: a balance never goes
 * negative, a ledger entry with a reference happens once, and a refund reverses one charge once.
 */
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE content.users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      phone text NOT NULL UNIQUE CHECK (phone ~ '^1[3-9][0-9]{9}$'),
      nickname text NOT NULL DEFAULT '',
      avatar_file_id uuid,
      bio text NOT NULL DEFAULT '',
      is_active boolean NOT NULL DEFAULT true,
      is_admin boolean NOT NULL DEFAULT false,
      -- Effective permissions are the defaults, plus granted, minus revoked (see permissions.ts).
      permissions_granted text[] NOT NULL DEFAULT '{}',
      permissions_revoked text[] NOT NULL DEFAULT '{}',
      balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
      last_login_at timestamptz,
      last_login_source text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE content.transaction_logs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      owner_id uuid NOT NULL REFERENCES content.users(id) ON DELETE CASCADE,
      visibility text NOT NULL DEFAULT 'private' CHECK (visibility = 'private'),
      amount bigint NOT NULL CHECK (amount <> 0),
      balance_after bigint NOT NULL CHECK (balance_after >= 0),
      kind text NOT NULL CHECK (kind IN ('grant', 'charge', 'refund', 'topup', 'adjustment', 'invite')),
      reference text,
      reverses_id uuid UNIQUE REFERENCES content.transaction_logs(id),
      description text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (kind, reference),
      CHECK ((kind = 'refund') = (reverses_id IS NOT NULL))
    );
    CREATE INDEX transaction_logs_owner_created ON content.transaction_logs (owner_id, created_at DESC, id DESC);

    CREATE TABLE content.files (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      owner_id uuid NOT NULL REFERENCES content.users(id) ON DELETE CASCADE,
      visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
      name text NOT NULL DEFAULT '',
      content_type text NOT NULL DEFAULT 'application/octet-stream',
      size bigint NOT NULL DEFAULT 0 CHECK (size >= 0),
      storage_key text,
      source text NOT NULL DEFAULT 'upload' CHECK (source IN ('upload', 'generation')),
      status text NOT NULL DEFAULT 'completed' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
      error_message text,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX files_owner_created ON content.files (owner_id, created_at DESC, id DESC);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query('DROP TABLE content.files; DROP TABLE content.transaction_logs; DROP TABLE content.users;');
}
