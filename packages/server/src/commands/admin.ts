import { announcerOf, createDatabase, createLogger, type Config } from '@muse/core';
import { grantAdministrator, isMainlandMobile } from '@muse/content-api';
import { requireSetting } from '../runtime.ts';

/**
 * `muse-server admin grant --phone N`: makes the account of N an administrator (registering
 * it when N never logged in). For the first administrator, or when the web UI is out of reach.
 */
export async function runAdminGrant(config: Config, phone: string): Promise<void> {
  if (!isMainlandMobile(phone)) throw new Error(`${phone} is not an 11-digit mainland mobile number`);
  const logger = createLogger(config, 'admin');
  const db = createDatabase(requireSetting(config, 'DATABASE_URL'), logger, {
    transactionPooler: config.MUSE_DB_TRANSACTION_POOLER,
  });
  try {
    const { id, changed } = await grantAdministrator(db, phone);
    console.log(
      changed
        ? `${phone} (user ${id}) is now an administrator`
        : `${phone} (user ${id}) was already an administrator`,
    );
  } finally {
    // The grant is announced after commit (running API processes re-check the account's sockets):
    // handed to Postgres before the connection closes.
    await announcerOf(db).flush();
    await db.close();
  }
}
