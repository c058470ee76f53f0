import { type SecretBox, type Sequelize, exec, one } from '@muse/core';
import type { Schema } from '../http/contract.ts';

/**
 * The payment provider's API configuration: one record of plain settings plus write-only
 * secrets (keys, webhook secrets). Readers see which secrets are set, never their values.
 */
export type PaymentSettings = Schema<'PaymentApiSettings'>;

export type PaymentApiView = PaymentSettings &
  Required<Pick<PaymentSettings, 'provider' | 'enabled'>> & { secrets_set: string[]; updated_at: Date };

/** `secrets` are merged into the stored ones; `null` removes one. */
export type PaymentApiChanges = Schema<'PaymentApiUpdate'>;

const DEFAULTS = { provider: 'none', enabled: false } as const;

export async function readPaymentApi(db: Sequelize): Promise<PaymentApiView> {
  const row = await one<{
    settings: PaymentSettings;
    secrets: Record<string, string>;
    updated_at: Date;
  }>(db, 'SELECT settings, secrets, updated_at FROM content.payment_api WHERE id = 1');
  return {
    ...DEFAULTS,
    ...row!.settings,
    secrets_set: Object.keys(row!.secrets).sort(),
    updated_at: row!.updated_at,
  };
}

/** Reads the secrets for the payment code that needs them (never for an API answer). */
export async function readPaymentSecrets(db: Sequelize, box: SecretBox): Promise<Record<string, string>> {
  const row = await one<{ secrets: Record<string, string> }>(
    db,
    'SELECT secrets FROM content.payment_api WHERE id = 1',
  );
  return box.openValues(row!.secrets) as Record<string, string>;
}

export async function updatePaymentApi(
  db: Sequelize,
  box: SecretBox,
  { secrets, ...settings }: PaymentApiChanges,
): Promise<PaymentApiView> {
  const set = Object.fromEntries(Object.entries(secrets ?? {}).filter(([, value]) => value !== null));
  const removed = Object.entries(secrets ?? {})
    .filter(([, value]) => value === null)
    .map(([key]) => key);
  await exec(
    db,
    `UPDATE content.payment_api
        SET settings = settings || CAST(:settings AS jsonb),
            secrets = (secrets || CAST(:set AS jsonb)) - CAST(:removed AS text[]),
            updated_at = now()
      WHERE id = 1`,
    {
      settings: JSON.stringify(settings),
      set: JSON.stringify(box.sealValues(set)),
      removed: `{${removed.join(',')}}`,
    },
  );
  return readPaymentApi(db);
}
