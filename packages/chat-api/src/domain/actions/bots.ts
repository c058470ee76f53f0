import { botRequestRefused, insufficientPermission, JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent, type ChatEvent } from '../lib/events/log.ts';
import { deleteQueuesOfUser } from '../lib/events/registration.ts';
import { userHasGroupSetting } from '../lib/group-settings.ts';
import { MAX_FULL_NAME_LENGTH } from '../limits.ts';
import {
  accessBotById,
  botAdministratorIds,
  BOT_TYPE,
  BOT_TYPES,
  GENERIC_INTERFACE,
  serviceOf,
} from '../lib/bots.ts';
import { REALM_GROUP_SETTINGS } from '../lib/realm-policy.ts';
import { formatBot } from '../presenters/bots.ts';
import { realmHost, systemGroupIds } from '../lib/realms.ts';
import {
  activeUserIds,
  avatarUrl,
  createUser,
  emailInUse,
  isAdmin,
  lockRealmForNewAccount,
  userById,
  type User,
} from '../lib/users.ts';
import { generateApiKey } from '../lib/credentials.ts';
import { announceNewAccount } from './create-user.ts';
import { transact, exec, one, type Transaction } from '@muse/core';

export interface NewBot {
  full_name: string;
  short_name: string;
  bot_type: number;
  payload_url: string | undefined;
  interface_type: number;
}

/** Zulip's `check_full_name` and `check_bot_name_available`. */
async function checkBotName(actor: Actor, raw: string, t: Transaction, except?: number): Promise<string> {
  const name = raw.trim();
  if (name.length === 0) throw new JsonableError('Name too short!');
  if ([...name].length > MAX_FULL_NAME_LENGTH) throw new JsonableError('Name too long!');
  const taken = await one(
    actor.db,
    `SELECT 1 FROM chat.users WHERE realm_id = :realmId AND is_active AND lower(full_name) = lower(:name)
       AND id <> :except`,
    { realmId: actor.realm.id, name, except: except ?? 0 },
    t,
  );
  if (taken) throw new JsonableError('Name is already in use!');
  return name;
}

/**
 * The organization's bot-creation policy: `can_create_bots_group` creates any bot,
 * `can_create_write_only_bots_group` incoming-webhook bots only (Zulip's `check_bot_creation_policy`).
 */
async function checkCreationPolicy(actor: Actor, botType: number): Promise<void> {
  const groups = await systemGroupIds(actor.db, actor.realm.id);
  const group = (name: string) => groups[REALM_GROUP_SETTINGS[name]!];
  if (await userHasGroupSetting(actor.db, actor.user, group('can_create_bots_group'))) return;
  if (
    botType === BOT_TYPE.INCOMING_WEBHOOK &&
    (await userHasGroupSetting(actor.db, actor.user, group('can_create_write_only_bots_group')))
  )
    return;
  throw insufficientPermission();
}

function checkPayloadUrl(raw: string | undefined, name: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw ?? '');
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw new JsonableError(`${name} is not a URL`);
  return url.href;
}

/** Who sees a change of the bot's public data: every active user (`realm_user`). */
async function announceUserChange(actor: Actor, person: Record<string, unknown>, t: Transaction) {
  await sendEvent(actor.db, t, await activeUserIds(actor.db, actor.realm.id, t), {
    type: 'realm_user',
    op: 'update',
    person,
  });
}

async function announceBotChange(actor: Actor, bot: User, change: Record<string, unknown>, t: Transaction) {
  await sendEvent(actor.db, t, await botAdministratorIds(actor.db, bot, t), {
    type: 'realm_bot',
    op: 'update',
    bot: { user_id: bot.id, ...change },
  });
}

async function realmBotAdd(actor: Actor, bot: User, t: Transaction): Promise<ChatEvent> {
  const service = await serviceOf(actor.db, bot.id, t);
  return { type: 'realm_bot', op: 'add', bot: formatBot(bot, service, actor.realm, actor.config) };
}

/**
 * POST /bots: a bot owned by the caller, `<short_name>-bot@<organization host>`. Everyone gets
 * `realm_user` `add`; its owner and the administrators get `realm_bot` `add` (with the API key).
 * An outgoing-webhook bot gets its service: the payload URL and a token the bot server checks.
 */
export async function createBot(actor: Actor, input: NewBot) {
  // A bot's bots would answer to nobody: its owner and the administrators never list them.
  if (actor.user.is_bot) throw botRequestRefused();
  const short = input.short_name.trim();
  if (short.length === 0 || !/^[A-Za-z0-9._+-]+$/.test(short))
    throw new JsonableError('Bad name or username');
  const email = `${short}-bot@${realmHost(actor.realm, actor.config)}`;
  if (!BOT_TYPES.includes(input.bot_type)) throw new JsonableError('Invalid bot type');
  await checkCreationPolicy(actor, input.bot_type);
  if (input.interface_type !== GENERIC_INTERFACE) throw new JsonableError('Invalid interface type');
  const payloadUrl =
    input.bot_type === BOT_TYPE.OUTGOING_WEBHOOK
      ? checkPayloadUrl(input.payload_url, 'payload_url')
      : undefined;
  const bot = await transact(actor.db, async (t) => {
    await lockRealmForNewAccount(actor.db, actor.realm.id, t);
    const fullName = await checkBotName(actor, input.full_name, t);
    if (await emailInUse(actor.db, actor.realm.id, email, t))
      throw new JsonableError('Username already in use');
    const created = await createUser(
      actor.db,
      actor.realm,
      { email, fullName, isBot: true, botType: input.bot_type, botOwnerId: actor.user.id },
      t,
    );
    if (payloadUrl)
      await exec(
        actor.db,
        `INSERT INTO chat.bot_services (bot_id, base_url, interface, token) VALUES (:botId, :url, :interface, :token)`,
        { botId: created.id, url: payloadUrl, interface: input.interface_type, token: generateApiKey() },
        t,
      );
    await announceNewAccount(actor, created, t);
    await sendEvent(
      actor.db,
      t,
      await botAdministratorIds(actor.db, created, t),
      await realmBotAdd(actor, created, t),
    );
    return created;
  });
  return {
    user_id: bot.id,
    api_key: bot.api_key,
    avatar_url: avatarUrl(bot, bot.delivery_email),
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
  };
}

export interface BotChanges {
  full_name?: string | undefined;
  bot_owner_id?: number | undefined;
  service_payload_url?: string | undefined;
  service_interface: number;
}

/** Zulip's `do_change_bot_owner`: the old owner loses the bot, the new one gains it, admins see an update. */
async function changeOwner(actor: Actor, bot: User, ownerId: number, t: Transaction): Promise<User> {
  const owner = await userById(actor.db, actor.realm.id, ownerId, t);
  if (!owner) throw new JsonableError('Failed to change owner, no such user');
  if (!owner.is_active) throw new JsonableError('Failed to change owner, user is deactivated');
  if (owner.is_bot) throw new JsonableError("Failed to change owner, bots can't own other bots");
  // The owner reads the bot's key, so a lower role would act with the bot's rights.
  if (owner.role > bot.role)
    throw new JsonableError("Failed to change owner, the new owner's role is below the bot's");
  if (owner.id === bot.bot_owner_id) return bot;
  const previous =
    bot.bot_owner_id === null ? undefined : await userById(actor.db, actor.realm.id, bot.bot_owner_id, t);
  await exec(
    actor.db,
    'UPDATE chat.users SET bot_owner_id = :ownerId WHERE id = :id',
    { ownerId, id: bot.id },
    t,
  );
  const changed = { ...bot, bot_owner_id: ownerId };
  const updated = new Set(await botAdministratorIds(actor.db, changed, t));
  if (previous && !isAdmin(previous)) {
    await sendEvent(actor.db, t, [previous.id], {
      type: 'realm_bot',
      op: 'delete',
      bot: { user_id: bot.id },
    });
    updated.delete(previous.id);
  }
  if (!isAdmin(owner)) {
    await sendEvent(actor.db, t, [owner.id], await realmBotAdd(actor, changed, t));
    updated.delete(owner.id);
  }
  await sendEvent(actor.db, t, updated, {
    type: 'realm_bot',
    op: 'update',
    bot: { user_id: bot.id, owner_id: ownerId },
  });
  await announceUserChange(actor, { user_id: bot.id, bot_owner_id: ownerId }, t);
  return changed;
}

/** PATCH /bots/{bot_id}: name, owner, and an outgoing webhook's URL. */
export async function updateBot(actor: Actor, botId: number, changes: BotChanges) {
  if (changes.service_payload_url !== undefined && changes.service_interface !== GENERIC_INTERFACE)
    throw new JsonableError('Invalid interface type');
  const payloadUrl =
    changes.service_payload_url === undefined
      ? undefined
      : checkPayloadUrl(changes.service_payload_url, 'service_payload_url');
  const bot = await transact(actor.db, async (t) => {
    let bot = await accessBotById(actor, botId, t);
    await exec(
      actor.db,
      'SELECT 1 FROM chat.realms WHERE id = :realmId FOR NO KEY UPDATE',
      { realmId: actor.realm.id },
      t,
    );
    if (changes.full_name !== undefined && changes.full_name.trim() !== bot.full_name) {
      const fullName = await checkBotName(actor, changes.full_name, t, bot.id);
      await exec(
        actor.db,
        'UPDATE chat.users SET full_name = :fullName WHERE id = :id',
        { fullName, id: bot.id },
        t,
      );
      bot = { ...bot, full_name: fullName };
      await announceUserChange(actor, { user_id: bot.id, full_name: fullName }, t);
      await announceBotChange(actor, bot, { full_name: fullName }, t);
    }
    if (changes.bot_owner_id !== undefined) bot = await changeOwner(actor, bot, changes.bot_owner_id, t);
    if (payloadUrl !== undefined) {
      const service = await one<{ token: string; interface: number }>(
        actor.db,
        `UPDATE chat.bot_services SET base_url = :url, interface = :interface WHERE bot_id = :id
         RETURNING token, interface`,
        { url: payloadUrl, interface: changes.service_interface, id: bot.id },
        t,
      );
      if (!service) throw new JsonableError('This bot has no outgoing webhook');
      await announceBotChange(
        actor,
        bot,
        { services: [{ base_url: payloadUrl, interface: service.interface, token: service.token }] },
        t,
      );
    }
    return bot;
  });
  const owner =
    bot.bot_owner_id === null ? undefined : await userById(actor.db, actor.realm.id, bot.bot_owner_id);
  return {
    full_name: bot.full_name,
    avatar_url: avatarUrl(bot, bot.delivery_email),
    service_interface: changes.service_interface,
    service_payload_url: payloadUrl ?? null,
    config_data: null,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    ...(owner ? { bot_owner: owner.delivery_email } : {}),
  };
}

/** POST /bots/{bot_id}/api_key/regenerate: the old key stops working at once. */
export async function regenerateBotApiKey(actor: Actor, botId: number): Promise<string> {
  return transact(actor.db, async (t) => {
    const bot = await accessBotById(actor, botId, t);
    const apiKey = generateApiKey();
    await exec(actor.db, 'UPDATE chat.users SET api_key = :apiKey WHERE id = :id', { apiKey, id: bot.id }, t);
    await announceBotChange(actor, bot, { api_key: apiKey }, t);
    return apiKey;
  });
}

/**
 * DELETE /bots/{bot_id}: the bot is deactivated (its event queues end); everyone gets
 * `realm_user` `update` and its administrators `realm_bot` `update` with `is_active: false`
 * (Zulip since feature level 222). An inactive bot stays as it is.
 */
export async function deactivateBot(actor: Actor, botId: number): Promise<void> {
  await transact(actor.db, async (t) => {
    const bot = await accessBotById(actor, botId, t);
    if (!bot.is_active) return;
    await exec(actor.db, 'UPDATE chat.users SET is_active = false WHERE id = :id', { id: bot.id }, t);
    await deleteQueuesOfUser(actor.db, bot.id, t);
    await announceUserChange(actor, { user_id: bot.id, is_active: false }, t);
    await announceBotChange(actor, bot, { is_active: false }, t);
  });
}
