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
  last_login_at: Date | null;
  last_login_source: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns of a UserRow, named: a prepared `SELECT *` breaks when a migration adds one. */
const USER_COLUMNS = `id, phone, nickname, avatar_file_id, bio, is_active, is_admin, permissions_granted,
  permissions_revoked, balance, last_login_at, last_login_source, created_at, updated_at`;

/** An account's row by id, the read every request makes of its caller (a prepared statement). */
export async function selectUserRow(db: Sequelize, id: string): Promise<UserRow | undefined> {
  const [row] = await selectRows<UserRow>(db, `SELECT ${USER_COLUMNS} FROM content.users WHERE id = $1`, [
    id,
  ]);
  return row;
}
