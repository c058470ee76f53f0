import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { listRows, type ListQuery } from '../listing/listing.ts';
import type { CurrentUser } from '../auth/authenticate.ts';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  type SecretBox,
  type Sequelize,
  exec,
  one,
  rows,
  transact,
  isUniqueViolation,
} from '@muse/core';
import { ADAPTER_TYPES, adapterFor, type AdapterType } from './adapters/registry.ts';
import {
  assertValidSchema,
  defaultParametersSchema,
  GENERATION_KINDS,
  type GenerationKind,
} from './parameters.ts';
import { pricingOf, pricingProblems } from './pricing.ts';

export interface GeneratorRow {
  id: string;
  name: string;
  kind: GenerationKind;
  /** Checked by checkSpec before a row is written. */
  type: AdapterType;
  description: string;
  base_cost: number;
  is_active: boolean;
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
  parameters_schema: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** What an administrator (or the bootstrap file) states about a generator. */
export interface GeneratorSpec {
  id?: string;
  name: string;
  kind: GenerationKind;
  type: string;
  description?: string;
  base_cost: number;
  is_active?: boolean;
  config?: Record<string, unknown>;
  /** Write-only (API keys); merged into the stored secrets, a null value removes one. */
  secrets?: Record<string, unknown>;
  /** Defaults to the generic fields of `kind` (see parameters.ts). */
  parameters_schema?: Record<string, unknown>;
}

/** Execution settings every adapter honours, read from `config` with these defaults. */
export interface ExecutionSettings {
  requestTimeoutSeconds: number;
  maxAttempts: number;
  pollIntervalSeconds: number;
  timeoutSeconds: number;
  /** Largest result file taken from an upstream; a bigger one fails the task, not the worker. */
  maxResultBytes: number;
}

export function executionSettings(config: Record<string, unknown>): ExecutionSettings {
  const number = (key: string, fallback: number) =>
    typeof config[key] === 'number' ? (config[key] as number) : fallback;
  return {
    requestTimeoutSeconds: number('request_timeout_seconds', 60),
    maxAttempts: number('max_attempts', 4),
    pollIntervalSeconds: number('poll_interval_seconds', 2),
    timeoutSeconds: number('timeout_seconds', 900),
    maxResultBytes: number('max_result_bytes', 512 * 1024 * 1024),
  };
}

const SETTINGS_KEYS = [
  'request_timeout_seconds',
  'max_attempts',
  'poll_interval_seconds',
  'timeout_seconds',
  'max_result_bytes',
  'delay_ms',
];

/** The fields every user sees (the spec's Generator, plus the kind it makes and its pricing). */
export function publicGenerator(row: GeneratorRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    kind: row.kind,
    description: row.description,
    base_cost: row.base_cost,
    pricing: pricingOf(row.config),
    is_active: row.is_active,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** What administrators see: configuration too, but of the secrets only their names. */
export function adminGenerator(row: GeneratorRow) {
  return {
    ...publicGenerator(row),
    config: row.config,
    secret_names: Object.keys(row.secrets).sort(),
    parameters_schema: row.parameters_schema,
  };
}

export async function findGenerator(
  db: Sequelize,
  id: string,
  transaction?: Transaction,
): Promise<GeneratorRow | undefined> {
  const row = await one<GeneratorRow>(
    db,
    'SELECT * FROM content.generators WHERE id = :id',
    { id },
    transaction,
  );
  return row;
}

/** A page of the generators of a kind (the active ones unless asked), under the shared pagination and sorting. */
export async function listGenerators(
  db: Sequelize,
  kind: GenerationKind,
  query: ListQuery,
  user: CurrentUser,
  { includeInactive = false }: { includeInactive?: boolean } = {},
): Promise<GeneratorRow[]> {
  return listRows<GeneratorRow>(
    db,
    {
      from: 'content.generators',
      where: includeInactive ? ['kind = :kind'] : ['kind = :kind', 'is_active'],
      replacements: { kind },
      ownerless: true,
    },
    query,
    user,
  );
}

/** 422 naming each problem of a spec that the platform could not run. */
export function checkSpec(spec: GeneratorSpec): void {
  const problems: { path: string; message: string }[] = [];
  if (!GENERATION_KINDS.includes(spec.kind))
    problems.push({ path: '/kind', message: 'must be image, video or text' });
  if (!ADAPTER_TYPES.includes(spec.type as never)) {
    problems.push({ path: '/type', message: `must be one of ${ADAPTER_TYPES.join(', ')}` });
  } else if (!adapterFor(spec.type).kinds.includes(spec.kind)) {
    problems.push({ path: '/type', message: `a ${spec.type} generator cannot make ${spec.kind}s` });
  }
  if (spec.type !== 'builtin' && typeof spec.config?.base_url !== 'string') {
    problems.push({ path: '/config/base_url', message: 'is required for an upstream generator' });
  } else if (spec.config?.base_url !== undefined && !isHttpUrl(spec.config.base_url)) {
    problems.push({ path: '/config/base_url', message: 'must be an http or https URL' });
  }
  for (const key of SETTINGS_KEYS) {
    const value = spec.config?.[key];
    if (value !== undefined && (typeof value !== 'number' || !(value > 0))) {
      problems.push({ path: `/config/${key}`, message: 'must be a positive number' });
    }
  }
  problems.push(...pricingProblems(spec.config?.pricing));
  if (!Number.isInteger(spec.base_cost) || spec.base_cost < 0)
    problems.push({ path: '/base_cost', message: 'must be an integer >= 0' });
  if (problems.length) throw new ValidationError('The generator is not valid', problems);
  if (spec.parameters_schema) assertValidSchema(spec.parameters_schema);
}

/**
 * Creates the generator, or updates the one with the same id (or, without an id, the same
 * name). Idempotent: applying the same spec twice changes nothing the second time. This is
 * what the bootstrap file's `generators` section calls.
 */
export async function upsertGenerator(
  db: Sequelize,
  box: SecretBox,
  spec: GeneratorSpec,
  transaction?: Transaction,
): Promise<GeneratorRow> {
  checkSpec(spec);
  const replacements = {
    id: spec.id ?? null,
    name: spec.name,
    kind: spec.kind,
    type: spec.type,
    description: spec.description ?? '',
    base_cost: spec.base_cost,
    is_active: spec.is_active ?? true,
    config: JSON.stringify(spec.config ?? {}),
    secrets: JSON.stringify(box.sealValues(spec.secrets ?? {})),
    schema: JSON.stringify(spec.parameters_schema ?? defaultParametersSchema(spec.kind)),
  };
  const conflictTarget = spec.id ? '(id)' : '(name)';
  const found = await rows<GeneratorRow>(
    db,
    `INSERT INTO content.generators (id, name, kind, type, description, base_cost, is_active, config, secrets, parameters_schema)
     VALUES (COALESCE(CAST(:id AS uuid), gen_random_uuid()), :name, :kind, :type, :description, :base_cost, :is_active,
             CAST(:config AS jsonb), jsonb_strip_nulls(CAST(:secrets AS jsonb)), CAST(:schema AS jsonb))
     ON CONFLICT ${conflictTarget} DO UPDATE SET
       name = EXCLUDED.name, kind = EXCLUDED.kind, type = EXCLUDED.type, description = EXCLUDED.description,
       base_cost = EXCLUDED.base_cost, is_active = EXCLUDED.is_active, config = EXCLUDED.config,
       secrets = jsonb_strip_nulls(content.generators.secrets || CAST(:secrets AS jsonb)),
       parameters_schema = EXCLUDED.parameters_schema,
       updated_at = CASE WHEN (content.generators.name, content.generators.kind, content.generators.type,
                               content.generators.description, content.generators.base_cost, content.generators.is_active,
                               content.generators.config, content.generators.parameters_schema)
                           IS NOT DISTINCT FROM (EXCLUDED.name, EXCLUDED.kind, EXCLUDED.type, EXCLUDED.description,
                               EXCLUDED.base_cost, EXCLUDED.is_active, EXCLUDED.config, EXCLUDED.parameters_schema)
                          THEN content.generators.updated_at ELSE now() END
     RETURNING *`,
    replacements,
    transaction,
  ).catch((error: unknown) => {
    if (isUniqueViolation(error)) throw new ConflictError('Another generator has this name');
    throw error;
  });
  return found[0]!;
}

/** The generator the Kubernetes resource `owner` manages (the operator's `managed_by`), if any. */
export async function findManagedGenerator(db: Sequelize, owner: string): Promise<GeneratorRow | undefined> {
  const row = await one<GeneratorRow>(db, 'SELECT * FROM content.generators WHERE managed_by = :owner', {
    owner,
  });
  return row;
}

/**
 * Creates or updates the generator the Kubernetes resource `owner` manages, through
 * upsertGenerator (the admin API's checks), and marks a new one as managed by it, in one
 * transaction. The managed row is locked first, so two reconciles of one resource never make two.
 */
export async function upsertManagedGenerator(
  db: Sequelize,
  box: SecretBox,
  owner: string,
  spec: Omit<GeneratorSpec, 'id'>,
): Promise<GeneratorRow> {
  return transact(db, async (transaction) => {
    const owned = await one<{ id: string }>(
      db,
      'SELECT id FROM content.generators WHERE managed_by = :owner FOR UPDATE',
      { owner },
      transaction,
    );
    const saved = await upsertGenerator(db, box, { ...spec, id: owned?.id ?? randomUUID() }, transaction);
    if (!owned) {
      await exec(
        db,
        'UPDATE content.generators SET managed_by = :owner WHERE id = :id',
        { owner, id: saved.id },
        transaction,
      );
    }
    return saved;
  });
}

/** Applies a partial change (PATCH): the merged spec is checked as a whole. */
export async function updateGenerator(
  db: Sequelize,
  box: SecretBox,
  id: string,
  changes: Partial<GeneratorSpec>,
): Promise<GeneratorRow> {
  return transact(db, async (transaction) => {
    const current = await findGenerator(db, id, transaction);
    if (!current) throw new NotFoundError('No such generator');
    const kind = changes.kind ?? current.kind;
    const spec: GeneratorSpec = {
      id,
      name: changes.name ?? current.name,
      kind,
      type: changes.type ?? current.type,
      description: changes.description ?? current.description,
      base_cost: changes.base_cost ?? current.base_cost,
      is_active: changes.is_active ?? current.is_active,
      config: changes.config ?? current.config,
      secrets: changes.secrets ?? {},
      parameters_schema:
        changes.parameters_schema ??
        (changes.kind && changes.kind !== current.kind
          ? defaultParametersSchema(kind)
          : current.parameters_schema),
    };
    return upsertGenerator(db, box, spec, transaction);
  });
}

/** Upstreams are reached over http(s) only; the outbound client refuses anything else anyway. */
function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  return ['http:', 'https:'].includes(new URL(value).protocol);
}
