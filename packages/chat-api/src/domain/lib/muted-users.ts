import type { Sequelize } from '@muse/core';
import { rows, type Transaction } from '@muse/core';

/** Zulip's `muted_users`: whom the user muted, with when (UNIX seconds), oldest first. */
export async function mutedUsers(
  db: Sequelize,
  userId: number,
  t?: Transaction,
): Promise<{ id: number; timestamp: number }[]> {
  return rows<{ id: number; timestamp: number }>(
    db,
    `SELECT muted_user_id AS id, CAST(extract(epoch FROM date_muted) AS integer) AS timestamp
     FROM chat.muted_users WHERE user_id = :userId ORDER BY date_muted, muted_user_id`,
    { userId },
    t,
  );
}
