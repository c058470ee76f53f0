import type { Sequelize } from '@muse/core';
import { insufficientPermission, JsonableError } from '../errors.ts';
import { ROLE } from '../limits.ts';
import { isAdmin, userById, type User } from './users.ts';
import type { Actor } from '../context.ts';
import { rows, one, type Transaction } from '@muse/core';

/** Zulip's bot types. Embedded bots (4) run inside Zulip's server and are not offered. */
export const BOT_TYPE = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3 } as const;
export const BOT_TYPES: readonly number[] = Object.values(BOT_TYPE);

/** Zulip's outgoing-webhook interfaces; Muse speaks the generic one (Slack's format is not offered). */
export const GENERIC_INTERFACE = 1;

/** The endpoint an outgoing-webhook bot is called at. */
export interface BotService {
  bot_id: number;
  base_url: string;
  interface: number;
  token: string;
}

export async function servicesOf(
  db: Sequelize,
  botIds: number[],
  t?: Transaction,
): Promise<Map<number, BotService>> {
  if (botIds.length === 0) return new Map();
  const found = await rows<BotService>(
    db,
    'SELECT * FROM chat.bot_services WHERE bot_id IN (:botIds)',
    { botIds },
    t,
  );
  return new Map(found.map((s) => [s.bot_id, s]));
}

export async function serviceOf(
  db: Sequelize,
  botId: number,
  t?: Transaction,
): Promise<BotService | undefined> {
  return one<BotService>(db, 'SELECT * FROM chat.bot_services WHERE bot_id = :botId', { botId }, t);
}

/** Zulip's `can_admin_user` for a bot: its owner, or an administrator. */
export const canAdministerBot = (user: User, bot: User) => bot.bot_owner_id === user.id || isAdmin(user);

/** Zulip's `access_bot_by_id`: a bot of the caller's organization the caller may administer. */
export async function accessBotById(actor: Actor, botId: number, t?: Transaction): Promise<User> {
  const bot = await userById(actor.db, actor.realm.id, botId, t);
  if (!bot || !bot.is_bot) throw new JsonableError('No such bot');
  if (!canAdministerBot(actor.user, bot)) throw insufficientPermission();
  return bot;
}

/**
 * Who hears of a bot's administration (`realm_bot` events): its owner and the organization's
 * human administrators, as Zulip's `bot_owner_user_ids`.
 */
export async function botAdministratorIds(db: Sequelize, bot: User, t?: Transaction): Promise<number[]> {
  const admins = await rows<{ id: number }>(
    db,
    `SELECT id FROM chat.users WHERE realm_id = :realmId AND is_active AND NOT is_bot AND role <= :admin`,
    { realmId: bot.realm_id, admin: ROLE.ADMINISTRATOR },
    t,
  );
  const ids = new Set(admins.map((a) => a.id));
  if (bot.bot_owner_id !== null) ids.add(bot.bot_owner_id);
  return [...ids];
}

/** `realm_bots` of /register: every bot for an administrator, else the caller's own (active or not). */
export async function administeredBots(actor: Actor): Promise<User[]> {
  return rows<User>(
    actor.db,
    `SELECT * FROM chat.users WHERE realm_id = :realmId AND is_bot
       AND (:all OR bot_owner_id = :userId) ORDER BY id`,
    { realmId: actor.realm.id, all: isAdmin(actor.user), userId: actor.user.id },
  );
}
