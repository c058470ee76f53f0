import type { MigrationContext } from '@muse/core';

/**
 * Generators (what users pick), generations (one row per submitted task, tied to its charge)
 * and the link from result files to their generation. The built-in offline generators are
 * seeded so a fresh installation can generate with no upstream at all.
 */
export const BUILTIN_GENERATOR_IDS = {
  image: '00000000-0000-4000-8000-000000000001',
  video: '00000000-0000-4000-8000-000000000002',
  text: '00000000-0000-4000-8000-000000000003',
} as const;

export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    CREATE TABLE content.generators (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL UNIQUE CHECK (length(name) > 0),
      kind text NOT NULL CHECK (kind IN ('image', 'video', 'text')),
      -- The upstream adapter: builtin, openai (OpenAI-compatible), replicate (submit-then-poll).
      type text NOT NULL CHECK (type IN ('builtin', 'openai', 'replicate')),
      description text NOT NULL DEFAULT '',
      base_cost integer NOT NULL CHECK (base_cost >= 0),
      is_active boolean NOT NULL DEFAULT true,
      config jsonb NOT NULL DEFAULT '{}',
      -- Write-only: never returned by the API.
      secrets jsonb NOT NULL DEFAULT '{}',
      parameters_schema jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE content.generations (
      id uuid PRIMARY KEY,
      owner_id uuid NOT NULL REFERENCES content.users(id) ON DELETE CASCADE,
      visibility text NOT NULL DEFAULT 'private' CHECK (visibility = 'private'),
      generator_id uuid NOT NULL REFERENCES content.generators(id),
      kind text NOT NULL CHECK (kind IN ('image', 'video', 'text')),
      params jsonb NOT NULL,
      cost bigint NOT NULL CHECK (cost >= 0),
      charge_id uuid REFERENCES content.transaction_logs(id),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
      error_message text,
      idempotency_key text,
      request_hash text NOT NULL,
      file_ids uuid[] NOT NULL,
      workflow_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (owner_id, idempotency_key)
    );
    CREATE INDEX generations_owner_created ON content.generations (owner_id, created_at DESC, id DESC);

    ALTER TABLE content.files ADD COLUMN generation_id uuid REFERENCES content.generations(id) ON DELETE SET NULL;
    CREATE INDEX files_generation ON content.files (generation_id);
    CREATE INDEX files_public_created ON content.files (created_at DESC, id DESC) WHERE visibility = 'public';
  `);

  const seeds = [
    {
      id: BUILTIN_GENERATOR_IDS.image,
      name: 'Built-in images',
      kind: 'image',
      description: 'Offline generator: a PNG pattern derived from the prompt. Works with no upstream.',
      base_cost: 1,
    },
    {
      id: BUILTIN_GENERATOR_IDS.video,
      name: 'Built-in videos',
      kind: 'video',
      description: 'Offline generator: a short animated GIF derived from the prompt. Works with no upstream.',
      base_cost: 2,
    },
    {
      id: BUILTIN_GENERATOR_IDS.text,
      name: 'Built-in texts',
      kind: 'text',
      description: 'Offline generator: plain text derived from the prompt. Works with no upstream.',
      base_cost: 1,
    },
  ];
  // Imported lazily: migrations must not depend on modules loaded at the top of the process.
  const { defaultParametersSchema } = await import('../src/generators/parameters.ts');
  for (const seed of seeds) {
    await sequelize.query(
      `INSERT INTO content.generators (id, name, kind, type, description, base_cost, parameters_schema)
       VALUES (:id, :name, :kind, 'builtin', :description, :base_cost, CAST(:schema AS jsonb))`,
      { replacements: { ...seed, schema: JSON.stringify(defaultParametersSchema(seed.kind as 'image')) } },
    );
  }
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE content.files DROP COLUMN generation_id;
    DROP TABLE content.generations;
    DROP TABLE content.generators;
  `);
}
