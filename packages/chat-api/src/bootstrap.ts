import type { Sequelize } from '@muse/core';
import { ROLE } from './domain/limits.ts';
import { createRealm, realmBySubdomain, type Realm } from './domain/realms.ts';
import { createUser, type User } from './domain/users.ts';

/** What `muse-server chat create-organization` runs: an organization with its system groups. */
export async function createOrganization(
  db: Sequelize,
  input: {
    subdomain: string;
    name: string;
    description?: string;
    emailAddressVisibility?: number;
    spectatorAccess?: boolean;
  },
): Promise<Realm> {
  if (!/^([a-z0-9]([a-z0-9-]*[a-z0-9])?)?$/.test(input.subdomain)) {
    throw new Error(
      `Invalid subdomain '${input.subdomain}': lowercase letters, digits and inner hyphens only`,
    );
  }
  if (await realmBySubdomain(db, input.subdomain))
    throw new Error(`An organization with subdomain '${input.subdomain}' exists`);
  return db.transaction(async (t) => {
    const realm = await createRealm(db, input, t);
    await db.query(
      'UPDATE chat.realms SET email_address_visibility = :v, enable_spectator_access = :spectators WHERE id = :id',
      {
        replacements: {
          v: input.emailAddressVisibility ?? 1,
          spectators: input.spectatorAccess ?? false,
          id: realm.id,
        },
        transaction: t,
      },
    );
    return {
      ...realm,
      email_address_visibility: input.emailAddressVisibility ?? 1,
      enable_spectator_access: input.spectatorAccess ?? false,
    };
  });
}

export const ROLE_NAMES: Record<string, number> = {
  owner: ROLE.OWNER,
  administrator: ROLE.ADMINISTRATOR,
  moderator: ROLE.MODERATOR,
  member: ROLE.MEMBER,
  guest: ROLE.GUEST,
};

/** What `muse-server chat create-user` runs; returns the user with its API key. */
export async function createChatUser(
  db: Sequelize,
  input: {
    subdomain: string;
    email: string;
    fullName: string;
    password?: string;
    role?: number;
    isBot?: boolean;
    botOwnerId?: number;
    emailAddressVisibility?: number;
    canChangeUserEmails?: boolean;
  },
): Promise<User> {
  const realm = await realmBySubdomain(db, input.subdomain);
  if (!realm) throw new Error(`No organization with subdomain '${input.subdomain}'`);
  const user = await createUser(db, realm, input);
  if (input.canChangeUserEmails) {
    await db.query('UPDATE chat.users SET can_change_user_emails = true WHERE id = :id', {
      replacements: { id: user.id },
    });
    return { ...user, can_change_user_emails: true };
  }
  return user;
}
