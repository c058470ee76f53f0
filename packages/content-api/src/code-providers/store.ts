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
import { checkProviderSettings, isProviderType, PROVIDER_KINDS, type ProviderType } from './kinds.ts';
import type { CodeType } from '../login/codes.ts';
import type { Schema } from '../http/contract.ts';

export interface ProviderRow {
  id: string;
  name: string;
  type: ProviderType;
  enabled: boolean;
  priority: number;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
  /** The Kubernetes resource that owns the provider (see the operator), or null. */
  managed_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What the API shows: everything but the secrets, of which only the names that are set. */
export type ProviderView = Omit<ProviderRow, 'secrets' | 'managed_by'> & {
  code_types: readonly CodeType[];
  secrets_set: string[];
};

export type ProviderInput = Schema<'CodeProviderCreate'>;
/** `config` and `secrets` are merged into the stored ones; a `null` secret removes it. */
export type ProviderChanges = Schema<'CodeProviderUpdate'>;

export function toView({ secrets, managed_by: _managedBy, ...row }: ProviderRow): ProviderView {
  return { ...row, code_types: PROVIDER_KINDS[row.type].codeTypes, secrets_set: Object.keys(secrets).sort() };
}

export async function listProviders(db: Sequelize): Promise<ProviderRow[]> {
  return rows<ProviderRow>(
    db,
    'SELECT * FROM content.verification_code_providers ORDER BY priority, created_at, id',
  );
}

/** A page of the providers, always in the order they are tried (`order` breaks priority ties). */
export async function pageProviders(
  db: Sequelize,
  query: ListQuery,
  user: CurrentUser,
): Promise<ProviderRow[]> {
  return listRows<ProviderRow>(
    db,
    { from: 'content.verification_code_providers', ownerless: true, sortFirst: 'priority' },
    query,
    user,
  );
}

/** One provider; inside `transaction` its row stays locked until the transaction ends. */
export async function getProvider(
  db: Sequelize,
  id: string,
  transaction?: Transaction,
): Promise<ProviderRow> {
  const row = await one<ProviderRow>(
    db,
    `SELECT * FROM content.verification_code_providers WHERE id = :id${transaction ? ' FOR UPDATE' : ''}`,
    { id },
    transaction,
  );
  if (!row) throw new NotFoundError('No such verification-code provider');
  return row;
}

export async function createProvider(
  db: Sequelize,
  box: SecretBox,
  input: ProviderInput,
  transaction?: Transaction,
): Promise<ProviderRow> {
  if (!isProviderType(input.type))
    throw new ValidationError('Unknown provider type', [{ path: 'type', message: 'unknown' }]);
  const config = checkProviderSettings(input.type, 'config', input.config ?? {});
  const secrets = checkProviderSettings(input.type, 'secrets', input.secrets ?? {});
  return saveRow(
    db,
    transaction,
    `INSERT INTO content.verification_code_providers (name, type, enabled, priority, config, secrets)
     VALUES (:name, :type, :enabled, :priority, CAST(:config AS jsonb), CAST(:secrets AS jsonb)) RETURNING *`,
    {
      name: input.name,
      type: input.type,
      enabled: input.enabled ?? true,
      priority: input.priority ?? 100,
      config: JSON.stringify(config),
      secrets: JSON.stringify(box.sealValues(secrets)),
    },
  );
}

/** The provider the Kubernetes resource `owner` manages (the operator's `managed_by`), if any. */
export async function findManagedProvider(db: Sequelize, owner: string): Promise<ProviderRow | undefined> {
  const row = await one<ProviderRow>(
    db,
    'SELECT * FROM content.verification_code_providers WHERE managed_by = :owner',
    { owner },
  );
  return row;
}

/** Creates a provider managed by the Kubernetes resource `owner`: createProvider's checks, one transaction. */
export async function createManagedProvider(
  db: Sequelize,
  box: SecretBox,
  owner: string,
  input: ProviderInput,
): Promise<ProviderRow> {
  return transact(db, async (transaction) => {
    const created = await createProvider(db, box, input, transaction);
    await exec(
      db,
      'UPDATE content.verification_code_providers SET managed_by = :owner WHERE id = :id',
      { owner, id: created.id },
      transaction,
    );
    return { ...created, managed_by: owner };
  });
}

export async function updateProvider(
  db: Sequelize,
  box: SecretBox,
  id: string,
  changes: ProviderChanges,
): Promise<ProviderRow> {
  // The merge reads then writes; the row lock keeps a concurrent change from being overwritten.
  return transact(db, async (transaction) => {
    const current = await getProvider(db, id, transaction);
    const opened = { ...current, secrets: box.openValues(current.secrets) as Record<string, string> };
    return saveRow(db, transaction, mergeSql, { id, ...mergeChanges(opened, changes, box) });
  });
}

const mergeSql = `UPDATE content.verification_code_providers
    SET name = :name, enabled = :enabled, priority = :priority, config = CAST(:config AS jsonb),
        secrets = CAST(:secrets AS jsonb), updated_at = now()
  WHERE id = :id RETURNING *`;

/** The provider's columns after `changes`: config and secrets merged, each checked against the type. */
function mergeChanges(
  current: ProviderRow,
  changes: ProviderChanges,
  box: SecretBox,
): Record<string, unknown> {
  const config = checkProviderSettings(current.type, 'config', { ...current.config, ...changes.config });
  const mergedSecrets: Record<string, unknown> = { ...current.secrets, ...changes.secrets };
  for (const [key, value] of Object.entries(mergedSecrets)) if (value === null) delete mergedSecrets[key];
  const secrets = checkProviderSettings(current.type, 'secrets', mergedSecrets);
  return {
    name: changes.name ?? current.name,
    enabled: changes.enabled ?? current.enabled,
    priority: changes.priority ?? current.priority,
    config: JSON.stringify(config),
    secrets: JSON.stringify(box.sealValues(secrets)),
  };
}

export async function deleteProvider(db: Sequelize, id: string): Promise<void> {
  const deleted = await rows(
    db,
    'DELETE FROM content.verification_code_providers WHERE id = :id RETURNING id',
    {
      id,
    },
  );
  if (deleted.length === 0) throw new NotFoundError('No such verification-code provider');
}

/**
 * The enabled providers able to deliver `codeType`, in the order they are tried. In production
 * a development-only provider (one stored earlier, or declared in a bootstrap file) never delivers.
 */
export async function enabledProvidersFor(
  db: Sequelize,
  box: SecretBox,
  codeType: CodeType,
  production: boolean,
): Promise<ProviderRow[]> {
  const found = await rows<ProviderRow>(
    db,
    'SELECT * FROM content.verification_code_providers WHERE enabled ORDER BY priority, created_at, id',
  );
  return found
    .filter((row) => {
      if (!isProviderType(row.type)) return false;
      const kind = PROVIDER_KINDS[row.type];
      return kind.codeTypes.includes(codeType) && !(production && kind.developmentOnly);
    })
    .map((row) => ({ ...row, secrets: box.openValues(row.secrets) as Record<string, string> }));
}

/** 422 when a development-only type is added to a production server. */
export function assertTypeAllowed(type: string, production: boolean): void {
  if (production && isProviderType(type) && PROVIDER_KINDS[type].developmentOnly) {
    throw new ValidationError(`A ${type} provider is for development only`, [
      { path: 'type', message: `${type} is for development only, not for production` },
    ]);
  }
}

async function saveRow(
  db: Sequelize,
  transaction: Transaction | undefined,
  sql: string,
  replacements: Record<string, unknown>,
): Promise<ProviderRow> {
  try {
    const row = await one<ProviderRow>(db, sql, replacements, transaction);
    return row!;
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new ConflictError(`A provider named "${String(replacements.name)}" already exists`);
    }
    throw error;
  }
}
