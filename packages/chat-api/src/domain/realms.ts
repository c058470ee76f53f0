import type { Config, Sequelize } from '@muse/core';
import { exec, one, rows, type Transaction } from './sql.ts';

export interface Realm {
  id: number;
  string_id: string;
  name: string;
  description: string;
  date_created: Date;
  deactivated: boolean;
  email_address_visibility: number;
  topics_policy: string;
  message_retention_days: number | null;
  enable_spectator_access: boolean;
  notification_bot_id: number | null;
  new_stream_announcements_stream_id: number | null;
}

/**
 * The organization a request is for, from its Host header, as Zulip does: `<sub>.<root>` is
 * the organization `sub`, the root host itself is the one with the empty subdomain, and an IP
 * address or localhost (development, tests, a single-organization install) is the default.
 */
export function subdomainForHost(host: string | undefined, config: Config): string {
  const name = (host ?? '').replace(/:\d+$/, '').toLowerCase();
  const root = config.MUSE_CHAT_REALM_HOST.toLowerCase();
  if (name === root) return '';
  if (name.endsWith(`.${root}`)) return name.slice(0, -root.length - 1);
  return config.MUSE_CHAT_DEFAULT_REALM;
}

export async function realmBySubdomain(db: Sequelize, subdomain: string): Promise<Realm | undefined> {
  return one<Realm>(db, 'SELECT * FROM chat.realms WHERE string_id = :subdomain', { subdomain });
}

/** The host part of dummy addresses (`user<id>@<host>`) and of the organization URL. */
export function realmHost(realm: Realm, config: Config): string {
  return realm.string_id ? `${realm.string_id}.${config.MUSE_CHAT_REALM_HOST}` : config.MUSE_CHAT_REALM_HOST;
}

/** System groups every organization has; group settings refer to them by id. */
export const SYSTEM_GROUPS = [
  'role:internet',
  'role:everyone',
  'role:members',
  'role:fullmembers',
  'role:moderators',
  'role:administrators',
  'role:owners',
  'role:nobody',
] as const;
export type SystemGroupName = (typeof SYSTEM_GROUPS)[number];

export async function createRealm(
  db: Sequelize,
  input: { subdomain: string; name: string; description?: string },
  transaction: Transaction,
): Promise<Realm> {
  const realm = await one<Realm>(
    db,
    `INSERT INTO chat.realms (string_id, name, description) VALUES (:subdomain, :name, :description) RETURNING *`,
    { subdomain: input.subdomain, name: input.name, description: input.description ?? '' },
    transaction,
  );
  if (!realm) throw new Error('realm insert returned nothing');
  for (const name of SYSTEM_GROUPS) {
    await exec(
      db,
      `INSERT INTO chat.user_groups (realm_id, name, is_system_group) VALUES (:realm, :name, true)`,
      { realm: realm.id, name },
      transaction,
    );
  }
  return realm;
}

export async function systemGroupIds(
  db: Sequelize,
  realmId: number,
  transaction?: Transaction,
): Promise<Record<SystemGroupName, number>> {
  const found = await rows<{ id: number; name: SystemGroupName }>(
    db,
    'SELECT id, name FROM chat.user_groups WHERE realm_id = :realmId AND is_system_group',
    { realmId },
    transaction,
  );
  return Object.fromEntries(found.map((g) => [g.name, g.id])) as Record<SystemGroupName, number>;
}
