import type { Sequelize } from '@muse/core';
import { one, rows } from '@muse/core';

/** A user's status as stored (migration 1081): empty strings where nothing is set. */
export interface StoredStatus {
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/** Zulip's status record: only what is set (the emoji's three fields together). */
export function formatStatus(status: StoredStatus | undefined): Record<string, string> {
  if (!status) return {};
  return {
    ...(status.status_text ? { status_text: status.status_text } : {}),
    ...(status.emoji_name
      ? { emoji_name: status.emoji_name, emoji_code: status.emoji_code, reaction_type: status.reaction_type }
      : {}),
  };
}

export async function userStatus(db: Sequelize, userId: number): Promise<Record<string, string>> {
  return formatStatus(
    await one<StoredStatus>(db, 'SELECT * FROM chat.user_status WHERE user_id = :userId', { userId }),
  );
}

/** `/register`'s `user_status`: by user id, the organization's users who set one. */
export async function realmStatuses(
  db: Sequelize,
  realmId: number,
): Promise<Record<string, Record<string, string>>> {
  const found = await rows<StoredStatus & { user_id: number }>(
    db,
    `SELECT s.* FROM chat.user_status s JOIN chat.users u ON u.id = s.user_id
     WHERE u.realm_id = :realmId AND (s.status_text <> '' OR s.emoji_name <> '')`,
    { realmId },
  );
  return Object.fromEntries(found.map((s) => [String(s.user_id), formatStatus(s)]));
}
