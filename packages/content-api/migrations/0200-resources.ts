import type { MigrationContext } from '@muse/core';

/**
 * The tables of the user-facing resources (see src/resources/declarations). Every one has the
 * same frame — id, owner, visibility, timestamps — and the same list indexes, so each list
 * query (own or public, newest first, ties broken on id) is an index scan.
 */
const FRAME = `
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_id uuid NOT NULL REFERENCES content.users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()`;

const VISIBILITY = `visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public'))`;
const PRIVATE_ONLY = `visibility text NOT NULL DEFAULT 'private' CHECK (visibility = 'private')`;

const TABLES: Record<string, { columns: string[]; visibility?: string }> = {
  characters: {
    columns: [
      `name text NOT NULL`,
      `avatar_file_id uuid REFERENCES content.files(id) ON DELETE SET NULL`,
      `description text NOT NULL DEFAULT ''`,
      `persona text NOT NULL DEFAULT ''`,
      `greeting text NOT NULL DEFAULT ''`,
      `tags jsonb NOT NULL DEFAULT '[]'`,
    ],
  },
  user_character_configs: {
    columns: [
      `character_id uuid NOT NULL REFERENCES content.characters(id) ON DELETE CASCADE`,
      `user_nickname text NOT NULL DEFAULT ''`,
      `extra_prompt text NOT NULL DEFAULT ''`,
      `temperature double precision`,
      `memory_enabled boolean NOT NULL DEFAULT true`,
      `UNIQUE (owner_id, character_id)`,
    ],
  },
  conversations: {
    columns: [
      `title text NOT NULL DEFAULT ''`,
      `character_id uuid REFERENCES content.characters(id) ON DELETE SET NULL`,
      `last_message_at timestamptz`,
    ],
  },
  projects: {
    columns: [
      `name text NOT NULL`,
      `description text NOT NULL DEFAULT ''`,
      `cover_file_id uuid REFERENCES content.files(id) ON DELETE SET NULL`,
    ],
  },
  canvases: {
    columns: [
      `project_id uuid NOT NULL REFERENCES content.projects(id) ON DELETE CASCADE`,
      `name text NOT NULL`,
      `document jsonb NOT NULL DEFAULT '{"nodes": [], "edges": []}'`,
      `thumbnail_file_id uuid REFERENCES content.files(id) ON DELETE SET NULL`,
    ],
  },
  skills: {
    columns: [
      `name text NOT NULL`,
      `description text NOT NULL DEFAULT ''`,
      `instructions text NOT NULL DEFAULT ''`,
      `parameters jsonb NOT NULL DEFAULT '{}'`,
      `tags jsonb NOT NULL DEFAULT '[]'`,
    ],
  },
  node_groups: {
    columns: [
      `name text NOT NULL`,
      `description text NOT NULL DEFAULT ''`,
      `nodes jsonb NOT NULL DEFAULT '[]'`,
      `edges jsonb NOT NULL DEFAULT '[]'`,
    ],
  },
  favorites: {
    columns: [
      `target_type text NOT NULL`,
      `target_id uuid NOT NULL`,
      `note text NOT NULL DEFAULT ''`,
      `UNIQUE (owner_id, target_type, target_id)`,
    ],
  },
  bundles: {
    columns: [
      `name text NOT NULL`,
      `description text NOT NULL DEFAULT ''`,
      `credits integer NOT NULL CHECK (credits > 0)`,
      `price_cents integer NOT NULL CHECK (price_cents >= 0)`,
      `currency text NOT NULL DEFAULT 'CNY'`,
      `is_active boolean NOT NULL DEFAULT true`,
    ],
  },
  payments: {
    visibility: PRIVATE_ONLY,
    columns: [
      `bundle_id uuid REFERENCES content.bundles(id) ON DELETE SET NULL`,
      `credits integer NOT NULL CHECK (credits > 0)`,
      `price_cents integer NOT NULL CHECK (price_cents >= 0)`,
      `currency text NOT NULL`,
      `status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'failed', 'cancelled'))`,
      `provider_reference text`,
      `paid_at timestamptz`,
    ],
  },
  invite_codes: {
    columns: [
      `code text NOT NULL UNIQUE`,
      `description text NOT NULL DEFAULT ''`,
      `credits integer NOT NULL CHECK (credits > 0)`,
      `max_uses integer NOT NULL CHECK (max_uses > 0)`,
      `used_count integer NOT NULL DEFAULT 0`,
      `expires_at timestamptz`,
      `CHECK (used_count BETWEEN 0 AND max_uses)`,
    ],
  },
};

export async function up({ sequelize }: MigrationContext): Promise<void> {
  for (const [table, { columns, visibility }] of Object.entries(TABLES)) {
    await sequelize.query(`
      CREATE TABLE content.${table} (${FRAME}, ${visibility ?? VISIBILITY}, ${columns.join(', ')});
      CREATE INDEX ${table}_owner_created ON content.${table} (owner_id, created_at DESC, id DESC);
      CREATE INDEX ${table}_owner_updated ON content.${table} (owner_id, updated_at DESC, id DESC);
      CREATE INDEX ${table}_visibility_created ON content.${table} (visibility, created_at DESC, id DESC);
      CREATE INDEX ${table}_visibility_updated ON content.${table} (visibility, updated_at DESC, id DESC);
    `);
  }
  await sequelize.query(`
    CREATE INDEX canvases_project ON content.canvases (project_id, created_at DESC, id DESC);
    CREATE INDEX favorites_target ON content.favorites (target_type, target_id);

    CREATE TABLE content.conversation_messages (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      conversation_id uuid NOT NULL REFERENCES content.conversations(id) ON DELETE CASCADE,
      author_id uuid REFERENCES content.users(id) ON DELETE SET NULL,
      role text NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
      content text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX conversation_messages_created ON content.conversation_messages (conversation_id, created_at DESC, id DESC);

    -- One row per (code, user): the unique key is what makes a second redemption impossible.
    CREATE TABLE content.invite_redemptions (
      invite_code_id uuid NOT NULL REFERENCES content.invite_codes(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES content.users(id) ON DELETE CASCADE,
      transaction_log_id uuid NOT NULL REFERENCES content.transaction_logs(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (invite_code_id, user_id)
    );

    -- Lists of the ledger by updated_at, like every other list.
    CREATE INDEX transaction_logs_owner_updated ON content.transaction_logs (owner_id, updated_at DESC, id DESC);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    DROP INDEX content.transaction_logs_owner_updated;
    DROP TABLE content.invite_redemptions;
    DROP TABLE content.conversation_messages;
  `);
  for (const table of Object.keys(TABLES).reverse()) await sequelize.query(`DROP TABLE content.${table}`);
}
