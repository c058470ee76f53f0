import { randomInt } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { createTokenSigner, type PermissionTriple } from '@muse/content-api';
import type { TestStack } from './stack.ts';

export interface TestUser {
  id: string;
  phone: string;
  token: string;
  /** `{ Authorization: 'Bearer …' }` for fetch. */
  headers: Record<string, string>;
}

/** A random mainland mobile number, unique enough for one test database. */
export function randomPhone(): string {
  return `13${String(randomInt(0, 1e9)).padStart(9, '0')}`;
}

/**
 * Inserts an account directly and signs a token for it with the stack's secret: tests of
 * resources and generation need a caller without going through the login flow each time.
 */
export async function createTestUser(
  stack: TestStack,
  options: { admin?: boolean; balance?: number; revoked?: PermissionTriple[]; active?: boolean } = {},
): Promise<TestUser> {
  const phone = randomPhone();
  const [row] = await stack.database.db.query<{ id: string }>(
    `INSERT INTO content.users (phone, is_admin, balance, permissions_revoked, is_active)
     VALUES (:phone, :admin, :balance, string_to_array(:revoked, ',')::text[], :active) RETURNING id`,
    {
      replacements: {
        phone,
        admin: options.admin ?? false,
        balance: options.balance ?? 0,
        revoked: (options.revoked ?? []).join(','),
        active: options.active ?? true,
      },
      type: QueryTypes.SELECT,
    },
  );
  const id = row!.id;
  const signer = createTokenSigner(stack.config.MUSE_JWT_SECRET!, stack.config.MUSE_JWT_TTL_SECONDS);
  const token = await signer.sign({ id, isActive: options.active ?? true, isAdmin: options.admin ?? false });
  return { id, phone, token, headers: { Authorization: `Bearer ${token}` } };
}

/** The account's credit balance, read from the database. */
export async function balanceOf(stack: TestStack, id: string): Promise<number> {
  const [row] = await stack.database.db.query<{ balance: string }>(
    'SELECT balance FROM content.users WHERE id = :id',
    {
      replacements: { id },
      type: QueryTypes.SELECT,
    },
  );
  return Number(row!.balance);
}
