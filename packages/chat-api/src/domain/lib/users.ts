/*
 * Users: the row and who it is to others (role predicates, the email each viewer sees, the avatar),
 * the reads of users by id and email, the new account's row (its events are its callers'),
 * the first login, and custom profile values. Passwords and API keys are credentials.ts's.
 */
import { createHash } from 'node:crypto';
import type { Config, Sequelize } from '@muse/core';
import { EMAIL_VISIBILITY, FIELD_TYPE, ROLE } from '../limits.ts';
import { renderMarkdown } from './markdown.ts';
import { realmHost, type Realm } from './realms.ts';
import { generateApiKey, hashPassword } from './credentials.ts';
import { exec, one, rows, type Transaction } from '@muse/core';

export interface User {
  id: number;
  realm_id: number;
  delivery_email: string;
  full_name: string;
  password_hash: string | null;
  api_key: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  timezone: string;
  avatar_version: number;
  date_joined: Date;
  is_imported_stub: boolean;
  can_change_user_emails: boolean;
  /** The extra right an administrator needs to create users over the API (`POST /users`). */
  can_create_users: boolean;
  /** Created over the API and not logged in yet: `date_joined` becomes the first login's time. */
  awaiting_first_login: boolean;
  /** `G`: the external provider's picture of the email; `D`: the server's default (a deleted profile). */
  avatar_source: 'G' | 'D';
  email_address_visibility: number;
  /** Personal settings the user changed (`PATCH /settings`); see lib/user-settings.ts. */
  settings?: Record<string, boolean | number | string>;
  /** The user's Zoom OAuth token (access and refresh), when they connected Zoom. */
  zoom_token: ZoomToken | null;
}

/** What presenting a message reads of its sender and direct recipients (message-row.ts `PresentedRow`). */
export type MessagePerson = Pick<
  User,
  | 'id'
  | 'full_name'
  | 'delivery_email'
  | 'email_address_visibility'
  | 'is_bot'
  | 'avatar_source'
  | 'avatar_version'
>;

export interface ZoomToken {
  access_token: string;
  refresh_token: string;
}

/** Custom profile field types whose values are Markdown. */
const MARKDOWN_FIELD_TYPES: number[] = [FIELD_TYPE.SHORT_TEXT, FIELD_TYPE.LONG_TEXT];

export const isAdmin = (user: Pick<User, 'role'>) => user.role <= ROLE.ADMINISTRATOR;
export const isOwner = (user: Pick<User, 'role'>) => user.role === ROLE.OWNER;
export const isGuest = (user: Pick<User, 'role'>) => user.role === ROLE.GUEST;

export function dummyEmail(userId: number, realm: Realm, config: Config): string {
  return `user${userId}@${realmHost(realm, config)}`;
}

/** The address clients use for the user: the real one only when everyone may see it. */
export function apiEmail(
  user: Pick<User, 'id' | 'delivery_email' | 'email_address_visibility' | 'is_bot'>,
  realm: Realm,
  config: Config,
): string {
  return user.email_address_visibility === EMAIL_VISIBILITY.EVERYONE || user.is_bot
    ? user.delivery_email
    : dummyEmail(user.id, realm, config);
}

/** Whether `viewer` may see `target`'s real address, following the target's visibility setting. */
export function canSeeRealEmail(
  viewer: Pick<User, 'id' | 'role'>,
  target: Pick<User, 'id' | 'email_address_visibility' | 'is_bot'>,
): boolean {
  if (viewer.id === target.id || target.is_bot) return true;
  switch (target.email_address_visibility) {
    case EMAIL_VISIBILITY.EVERYONE:
      return true;
    case EMAIL_VISIBILITY.MEMBERS:
      return viewer.role <= ROLE.MEMBER;
    case EMAIL_VISIBILITY.MODERATORS:
      return viewer.role <= ROLE.MODERATOR;
    case EMAIL_VISIBILITY.ADMINS:
      return viewer.role <= ROLE.ADMINISTRATOR;
    default:
      return false;
  }
}

/**
 * The user's picture: the Gravatar of the email the viewer may see (the real one when visible,
 * otherwise the API email, so the hash never reveals a hidden address), or, for a deleted profile,
 * Gravatar's generic default, which names no address at all.
 */
export function avatarUrl(user: Pick<User, 'avatar_source' | 'avatar_version'>, email: string): string {
  if (user.avatar_source === 'D')
    return `https://secure.gravatar.com/avatar/?d=mp&f=y&version=${user.avatar_version}`;
  const hash = createHash('md5').update(email.toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${user.avatar_version}`;
}

export async function userById(
  db: Sequelize,
  realmId: number,
  id: number,
  t?: Transaction,
): Promise<User | undefined> {
  return one<User>(db, 'SELECT * FROM chat.users WHERE realm_id = :realmId AND id = :id', { realmId, id }, t);
}

/** Ids of the organization's active users: the audience of organization-wide events. */
export async function activeUserIds(db: Sequelize, realmId: number, t?: Transaction): Promise<number[]> {
  return (
    await rows<{ id: number }>(
      db,
      'SELECT id FROM chat.users WHERE realm_id = :realmId AND is_active',
      { realmId },
      t,
    )
  ).map((r) => r.id);
}

export async function usersInRealm(db: Sequelize, realmId: number, t?: Transaction): Promise<User[]> {
  return rows<User>(db, 'SELECT * FROM chat.users WHERE realm_id = :realmId ORDER BY id', { realmId }, t);
}

/** The organization's users of the given ids (those shown in a message), not the whole organization. */
export async function usersByIds(
  db: Sequelize,
  realmId: number,
  ids: number[],
  t?: Transaction,
): Promise<User[]> {
  if (ids.length === 0) return [];
  return rows<User>(
    db,
    'SELECT * FROM chat.users WHERE realm_id = :realmId AND id IN (:ids)',
    { realmId, ids: [...new Set(ids)] },
    t,
  );
}

/** By real address, API address or dummy `user<id>@<host>` address, case-insensitively. */
export async function userByAnyEmail(
  db: Sequelize,
  realm: Realm,
  config: Config,
  email: string,
): Promise<User | undefined> {
  const dummy = new RegExp(`^user(\\d+)@${escapeRegExp(realmHost(realm, config))}$`, 'i').exec(email);
  if (dummy) {
    const byId = await userById(db, realm.id, Number(dummy[1]));
    if (byId) return byId;
  }
  return one<User>(
    db,
    'SELECT * FROM chat.users WHERE realm_id = :realm AND lower(delivery_email) = lower(:email)',
    {
      realm: realm.id,
      email,
    },
  );
}

/**
 * By email as `viewer` may name a user: the dummy `user<id>@<host>` address always finds them; the
 * real address only when the viewer may see it, so a hidden address is never confirmed.
 */
export async function userByEmailVisibleTo(
  db: Sequelize,
  realm: Realm,
  config: Config,
  viewer: User,
  email: string,
): Promise<User | undefined> {
  const target = await userByAnyEmail(db, realm, config, email);
  if (!target) return undefined;
  const isDummy = email.toLowerCase() === dummyEmail(target.id, realm, config).toLowerCase();
  return isDummy || canSeeRealEmail(viewer, target) ? target : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Makes account creations in one organization take turns (to commit), so two of one address cannot both pass the checks. */
export async function lockRealmForNewAccount(db: Sequelize, realmId: number, t: Transaction): Promise<void> {
  await exec(db, 'SELECT 1 FROM chat.realms WHERE id = :realmId FOR NO KEY UPDATE', { realmId }, t);
}

/** Whether an account of the organization already has this address (case-insensitive, as Zulip compares them). */
export async function emailInUse(
  db: Sequelize,
  realmId: number,
  email: string,
  t: Transaction,
): Promise<boolean> {
  const taken = await one(
    db,
    'SELECT 1 FROM chat.users WHERE realm_id = :realmId AND lower(delivery_email) = lower(:email)',
    { realmId, email },
    t,
  );
  return taken !== undefined;
}

export async function createUser(
  db: Sequelize,
  realm: Realm,
  input: {
    email: string;
    fullName: string;
    password?: string;
    role?: number;
    isBot?: boolean;
    botType?: number;
    botOwnerId?: number;
    emailAddressVisibility?: number;
    /** Created over the API: `date_joined` moves to the first login. */
    awaitingFirstLogin?: boolean;
  },
  transaction?: Transaction,
): Promise<User> {
  const user = await one<User>(
    db,
    `INSERT INTO chat.users (realm_id, delivery_email, full_name, password_hash, api_key, role, is_bot, bot_type,
       bot_owner_id, email_address_visibility, awaiting_first_login)
     VALUES (:realm, :email, :fullName, :hash, :apiKey, :role, :isBot, :botType, :botOwnerId, :visibility,
       :awaitingFirstLogin)
     RETURNING *`,
    {
      realm: realm.id,
      email: input.email,
      fullName: input.fullName,
      hash: input.password ? await hashPassword(input.password) : null,
      apiKey: generateApiKey(),
      role: input.role ?? ROLE.MEMBER,
      isBot: input.isBot ?? false,
      botType: input.isBot ? (input.botType ?? 1) : null,
      botOwnerId: input.botOwnerId ?? null,
      visibility: input.emailAddressVisibility ?? realm.email_address_visibility,
      awaitingFirstLogin: input.awaitingFirstLogin ?? false,
    },
    transaction,
  );
  if (!user) throw new Error('user insert returned nothing');
  return user;
}

/** An account created over the API joins at its first login: that time becomes `date_joined`. */
export async function recordFirstLogin(db: Sequelize, user: User): Promise<void> {
  if (!user.awaiting_first_login) return;
  await exec(
    db,
    'UPDATE chat.users SET date_joined = now(), awaiting_first_login = false WHERE id = :id AND awaiting_first_login',
    { id: user.id },
  );
}

/** A custom profile value as the API shows it; text fields also carry their HTML rendering. */
export interface ProfileEntry {
  value: string;
  rendered_value?: string;
}

/** Custom profile values of the given users: user id → field id → value. */
export async function profileValues(
  db: Sequelize,
  userIds: number[],
): Promise<Map<number, Map<number, ProfileEntry>>> {
  const found = userIds.length
    ? await rows<{ user_id: number; field_id: number; value: string; type: number }>(
        db,
        `SELECT v.user_id, v.field_id, v.value, f.type FROM chat.custom_profile_values v
         JOIN chat.custom_profile_fields f ON f.id = v.field_id WHERE v.user_id IN (:userIds)`,
        { userIds },
      )
    : [];
  const byUser = new Map<number, Map<number, ProfileEntry>>();
  for (const row of found) {
    if (!byUser.has(row.user_id)) byUser.set(row.user_id, new Map());
    byUser.get(row.user_id)?.set(row.field_id, profileEntry(row.type, row.value));
  }
  return byUser;
}

/** Short and long text fields are Markdown; their rendering is HTML, so it is escaped. */
export function profileEntry(fieldType: number, value: string): ProfileEntry {
  return MARKDOWN_FIELD_TYPES.includes(fieldType)
    ? { value, rendered_value: renderMarkdown(value) }
    : { value };
}
