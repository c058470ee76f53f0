import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createDatabase, createLogger, createSecretBox, type Config } from '@muse/core';
import { resealSecrets } from '@muse/content-api';
import { requireSetting } from '../runtime.ts';

/**
 * `muse-server secrets rotate`: reseals every stored secret under the first key of
 * MUSE_SECRETS_KEY. Rotation: put the new key first, keep the old one after it, run this, then
 * drop the old key. Prints counts only, never a value.
 */
export async function runSecretsRotate(config: Config): Promise<void> {
  const keys = config.MUSE_SECRETS_KEY ?? (await developmentKey(config));
  const db = createDatabase(requireSetting(config, 'DATABASE_URL'), createLogger(config, 'secrets'));
  try {
    const { resealed, current } = await resealSecrets(db, createSecretBox(keys));
    console.log(
      `resealed ${resealed} secret value(s) under the first key of MUSE_SECRETS_KEY; ${current} already under it`,
    );
  } finally {
    await db.close();
  }
}

/** Unset, the key `muse-server dev` keeps in MUSE_DATA_DIR (as it finds the dev stack's database). */
async function developmentKey(config: Config): Promise<string> {
  const file = path.resolve(config.MUSE_DATA_DIR, 'secrets-key');
  const key = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (!key) {
    throw new Error(
      `MUSE_SECRETS_KEY is not set and there is no development key in ${file}: there is no key to seal with`,
    );
  }
  return key;
}
