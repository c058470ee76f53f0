import type { Config, Sequelize } from '@muse/core';
import { ROLE } from './domain/limits.ts';
import { createRealm, realmBySubdomain, type Realm } from './domain/lib/realms.ts';
import { createUser, type User } from './domain/lib/users.ts';
import { PUBLIC_CHANNEL } from './domain/lib/streams.ts';
import { createStream, joinDefaultStreams } from './domain/actions/streams.ts';
import { createWelcomeBot, welcomeNewUser } from './domain/actions/onboarding.ts';
import { exec, one, transact } from '@muse/core';

/** What `muse-server chat create-organization` runs: an organization with its system groups. */
export async function createOrganization(
  db: Sequelize,
  input: {
    subdomain: string;
    name: string;
    description?: string;
    emailAddressVisibility?: number;
    spectatorAccess?: boolean;
    /** Zulip's `video_chat_provider` number; Jitsi (1) by default, as Zulip. */
    videoChatProvider?: number;
  },
): Promise<Realm> {
  if (!/^([a-z0-9]([a-z0-9-]*[a-z0-9])?)?$/.test(input.subdomain)) {
    throw new Error(
      `Invalid subdomain '${input.subdomain}': lowercase letters, digits and inner hyphens only`,
    );
  }
  if (await realmBySubdomain(db, input.subdomain))
    throw new Error(`An organization with subdomain '${input.subdomain}' exists`);
  return transact(db, async (t) => {
    const created = await createRealm(db, input, t);
    const realm: Realm = {
      ...created,
      email_address_visibility: input.emailAddressVisibility ?? 1,
      enable_spectator_access: input.spectatorAccess ?? false,
      video_chat_provider: input.videoChatProvider ?? created.video_chat_provider,
    };
    // The bot that announces new channels, and the channel it announces them in.
    const bot = await createUser(
      db,
      realm,
      {
        email: `notification-bot@${input.subdomain || 'root'}.muse.invalid`,
        fullName: 'Notification Bot',
        isBot: true,
      },
      t,
    );
    await createWelcomeBot(db, realm, t);
    // As in Zulip, `general` is a default channel: every new user joins it.
    const general = await createStream(
      { db, realm, user: bot },
      { name: 'general', description: '' },
      { ...PUBLIC_CHANNEL, is_default_stream: true },
      null,
      t,
    );
    await exec(
      db,
      `UPDATE chat.realms SET email_address_visibility = :v, enable_spectator_access = :spectators,
         notification_bot_id = :bot, new_stream_announcements_stream_id = :general,
         video_chat_provider = :video WHERE id = :id`,
      {
        v: realm.email_address_visibility,
        spectators: realm.enable_spectator_access,
        bot: bot.id,
        general: general.id,
        video: realm.video_chat_provider,
        id: realm.id,
      },
      t,
    );
    return { ...realm, notification_bot_id: bot.id, new_stream_announcements_stream_id: general.id };
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
    /** The extra right `POST /users` needs (Zulip's can_create_users). */
    canCreateUsers?: boolean;
  },
): Promise<User> {
  const realm = await realmBySubdomain(db, input.subdomain);
  if (!realm) throw new Error(`No organization with subdomain '${input.subdomain}'`);
  return transact(db, async (t) => {
    const user = await createUser(db, realm, input, t);
    await joinDefaultStreams(db, user, t);
    if (!input.canChangeUserEmails && !input.canCreateUsers) return user;
    const rights = await one<User>(
      db,
      `UPDATE chat.users SET can_change_user_emails = :emails, can_create_users = :create WHERE id = :id
       RETURNING *`,
      { id: user.id, emails: input.canChangeUserEmails ?? false, create: input.canCreateUsers ?? false },
      t,
    );
    if (!rights) throw new Error('user update returned nothing');
    return rights;
  });
}

/** The Welcome Bot's direct message to a user `create-user` just made, as Zulip sends at sign-up. */
export async function welcomeChatUser(
  db: Sequelize,
  config: Config,
  subdomain: string,
  user: User,
): Promise<void> {
  const realm = await realmBySubdomain(db, subdomain);
  if (realm) await welcomeNewUser(db, config, realm, user);
}

/** Renames, re-describes, deactivates or reactivates an organization (a deactivated one refuses every request). */
export async function updateOrganization(
  db: Sequelize,
  realmId: number,
  changes: { name?: string; description?: string; deactivated?: boolean },
): Promise<void> {
  await exec(
    db,
    `UPDATE chat.realms SET name = COALESCE(:name, name), description = COALESCE(:description, description),
       deactivated = COALESCE(:deactivated, deactivated) WHERE id = :id`,
    {
      id: realmId,
      name: changes.name ?? null,
      description: changes.description ?? null,
      deactivated: changes.deactivated ?? null,
    },
  );
}

/** The organization with this subdomain, and which Kubernetes resource manages it (the operator), if any. */
export function findOrganization(db: Sequelize, subdomain: string) {
  return one<{ id: number; managed_by: string | null; deactivated: boolean }>(
    db,
    'SELECT id, managed_by, deactivated FROM chat.realms WHERE string_id = :subdomain',
    { subdomain },
  );
}

/** Marks the organization as managed by the Kubernetes resource `owner`. */
export async function claimOrganization(db: Sequelize, realmId: number, owner: string): Promise<void> {
  await exec(db, 'UPDATE chat.realms SET managed_by = :owner WHERE id = :id', { owner, id: realmId });
}

/** The organization's account with this email (any letter case), with its API key. */
export function findAccountByEmail(db: Sequelize, realmId: number, email: string) {
  return one<{ id: number; api_key: string; delivery_email: string }>(
    db,
    'SELECT id, api_key, delivery_email FROM chat.users WHERE realm_id = :realmId AND lower(delivery_email) = lower(:email)',
    { realmId, email },
  );
}
