import { selectRows, type Sequelize } from '@muse/core';

/** An account's row as the requests that read it see it: the caller's account (auth) and the users area. */
export interface UserRow {
  id: string;
  phone: string;
  nickname: string;
  avatar_file_id: string | null;
  bio: string;
  is_active: boolean;
  is_admin: boolean;
  permissions_granted: string[];
  permissions_revoked: string[];
  balance: string | number;
  /** Timestamps are only ever answered: read by selectUserRow as their JSON text, by other reads as Dates. */
  last_login_at: Date | string | null;
  last_login_source: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The columns of a UserRow, named: a prepared `SELECT *` breaks when a migration adds one. */
const USER_COLUMNS = `id, phone, nickname, avatar_file_id, bio, is_active, is_admin, permissions_granted,
  permissions_revoked, balance, last_login_at, last_login_source, created_at, updated_at`;

/**
 * An account's row by id, the read every request makes of its caller (a prepared statement);
 * its timestamps as their JSON text, since `GET /users/me` answers them as they are.
 */
export async function selectUserRow(db: Sequelize, id: string): Promise<UserRow | undefined> {
  const [row] = await selectRows<UserRow>(
    db,
    `SELECT ${USER_COLUMNS} FROM content.users WHERE id = $1`,
    [id],
    { jsonTimestamps: true },
  );
  return row;
}
