import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from '@muse/core';

/** A parameterised SELECT (or ... RETURNING) over the chat schema. */
export async function rows<T>(
  db: Sequelize,
  sql: string,
  replacements: Record<string, unknown> = {},
  transaction?: Transaction,
): Promise<T[]> {
  const found: unknown = await db.query(sql, {
    replacements,
    type: QueryTypes.SELECT,
    ...(transaction ? { transaction } : {}),
  });
  return found as T[];
}

export async function one<T>(
  db: Sequelize,
  sql: string,
  replacements: Record<string, unknown> = {},
  transaction?: Transaction,
): Promise<T | undefined> {
  return (await rows<T>(db, sql, replacements, transaction))[0];
}

export async function exec(
  db: Sequelize,
  sql: string,
  replacements: Record<string, unknown> = {},
  transaction?: Transaction,
): Promise<void> {
  await db.query(sql, { replacements, ...(transaction ? { transaction } : {}) });
}

export type { Transaction };
