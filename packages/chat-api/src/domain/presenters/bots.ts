import type { Config } from '@muse/core';
import type { BotService } from '../lib/bots.ts';
import type { Realm } from '../lib/realms.ts';
import { apiEmail, avatarUrl, type User } from '../lib/users.ts';

/** A bot's services as Zulip lists them: an outgoing webhook's URL, interface and token. */
export const formatServices = (service: BotService | undefined) =>
  service ? [{ base_url: service.base_url, interface: service.interface, token: service.token }] : [];

/**
 * A bot as `realm_bot` events and the `realm_bots` state show it to those who administer it
 * (Zulip's `Bot` record: with its API key). Default channels are not kept: always null.
 */
export function formatBot(bot: User, service: BotService | undefined, realm: Realm, config: Config) {
  return {
    email: apiEmail(bot, realm, config),
    user_id: bot.id,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bot.is_active,
    api_key: bot.api_key,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: avatarUrl(bot, bot.delivery_email),
    services: formatServices(service),
    owner_id: bot.bot_owner_id,
  };
}

/** One entry of `GET /bots` (Zulip's `bot_info`). */
export function formatOwnedBot(bot: User) {
  return {
    username: bot.delivery_email,
    full_name: bot.full_name,
    api_key: bot.api_key,
    avatar_url: avatarUrl(bot, bot.delivery_email),
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
  };
}
