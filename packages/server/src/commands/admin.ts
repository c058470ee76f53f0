import { createDatabase, createLogger, type Config } from '@muse/core';
import { grantAdministrator } from '@muse/content-api';
import { requireSetting } from '../runtime.ts';

const MAINLAND_MOBILE = /^1[3-9]\d{9}$/;

/**
 * `muse-server admin grant --phone N`: makes the account of N an administrator (registering
 * it when N never logged in). For the first administrator, or when the web UI is out of reach.
 */
export async function runAdminGrant(config: Config, phone: string): Promise<void> {
  if (!MAINLAND_MOBILE.test(phone)) throw new Error(`${phone} is not an 11-digit mainland mobile number`);
  const logger = createLogger(config, 'admin');
  const db = createDatabase(requireSetting(config, 'DATABASE_URL'), logger);
  try {
    const { id, changed } = await grantAdministrator(db, phone);
    console.log(
      changed
        ? `${phone} (user ${id}) is now an administrator`
        : `${phone} (user ${id}) was already an administrator`,
    );
  } finally {
    await db.close();
  }
}
