import { createDatabase, createLogger, createSecretBox, type Config } from '@muse/core';
import { resealSecrets } from '@muse/content-api';
import { requireSetting } from '../runtime.ts';

/**
 * `muse-server secrets rotate`: reseals every stored secret under the first key of
 * MUSE_SECRETS_KEY. Rotation: put the new key first, keep the old one after it, run this, then
 * drop the old key. Prints counts only, never a value.
 */
export async function runSecretsRotate(config: Config): Promise<void> {
  if (!config.MUSE_SECRETS_KEY) throw new Error('MUSE_SECRETS_KEY is not set: there is no key to seal with');
  const db = createDatabase(requireSetting(config, 'DATABASE_URL'), createLogger(config, 'secrets'));
  try {
    const resealed = await resealSecrets(db, createSecretBox(config.MUSE_SECRETS_KEY));
    console.log(`resealed ${resealed} secret value(s) under the first key of MUSE_SECRETS_KEY`);
  } finally {
    await db.close();
  }
}
