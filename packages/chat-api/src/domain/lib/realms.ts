import type { Config, Sequelize } from '@muse/core';
import { exec, one, rows, type Transaction } from '@muse/core';

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
  /** Whether owners may change users' email addresses (migration 1083). */
  can_change_user_emails: boolean;
  /** Bumped by every linkifier change (migration 1084): the key of a process's compiled linkifiers. */
  linkifiers_version: number;
  notification_bot_id: number | null;
  new_stream_announcements_stream_id: number | null;
  /** Zulip's provider numbers: 0 none, 1 Jitsi, 3 Zoom (user OAuth), 4 BigBlueButton. */
  video_chat_provider: number;
  /** The largest file a member may upload (POST /user_uploads). */
  max_file_upload_size_mib: number;
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

/** Where a request came in: its scheme and Host header. */
export interface Origin {
  protocol: string;
  host: string | undefined;
}

/**
 * The organization's URL, the address clients really reach: `MUSE_CHAT_EXTERNAL_URL` (the root
 * organization's; others get their subdomain in front of its host) when configured, else the
 * request's own origin, port included. Without a request (push), its configured host over https.
 */
export function realmUrl(realm: Realm, config: Config, origin?: Origin): string {
  if (config.MUSE_CHAT_EXTERNAL_URL) {
    const url = new URL(config.MUSE_CHAT_EXTERNAL_URL);
    if (realm.string_id) url.host = `${realm.string_id}.${url.host}`;
    return url.origin;
  }
  if (origin?.host) return `${origin.protocol}://${origin.host}`;
  return `https://${realmHost(realm, config)}`;
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
  // As Zulip: nobody may change a system group, everyone may mention it.
  await exec(
    db,
    `UPDATE chat.user_groups g SET
       can_add_members_group = to_jsonb(n.id), can_join_group = to_jsonb(n.id),
       can_leave_group = to_jsonb(n.id), can_manage_group = to_jsonb(n.id),
       can_remove_members_group = to_jsonb(n.id), can_mention_group = to_jsonb(e.id)
     FROM chat.user_groups n, chat.user_groups e
     WHERE g.realm_id = :realm AND g.is_system_group AND n.realm_id = :realm AND n.name = 'role:nobody'
       AND e.realm_id = :realm AND e.name = 'role:everyone'`,
    { realm: realm.id },
    transaction,
  );
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
