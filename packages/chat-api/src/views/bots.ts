import { createBot, deactivateBot, regenerateBotApiKey, updateBot } from '../domain/actions/bots.ts';
import { BOT_TYPE, GENERIC_INTERFACE } from '../domain/lib/bots.ts';
import { formatOwnedBot } from '../domain/presenters/bots.ts';
import type { User } from '../domain/lib/users.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { rows } from '@muse/core';

const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };
const defaults = {
  default_sending_stream: { ...nullableStr, description: 'Always null: default channels are not kept.' },
  default_events_register_stream: { ...nullableStr, description: 'Always null.' },
  default_all_public_streams: { type: 'boolean', description: 'Always false.' },
};
const url = { type: 'string', description: 'An http(s) URL, JSON-encoded as in Zulip.' };
/** The example bot's fields that its listing and its creation both answer. */
const EXAMPLE_BOT = {
  api_key: 'QRcyKRq3mFHTfh6YvuobQBcQ9yu1gKMB',
  avatar_url: 'https://secure.gravatar.com/avatar/4f2a8b1c0d3e5f6a7b8c9d0e1f2a3b4c?d=identicon&version=1',
  default_sending_stream: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
};

/** Bot accounts: Zulip's /bots endpoints (not in Zulip's OpenAPI document; as its server answers them). */
export const botEndpoints = [
  endpoint({
    method: 'get',
    path: '/bots',
    operationId: 'listOwnBots',
    summary: "The caller's active bots, with their API keys",
    description:
      'Only bots whose owner is the caller, active ones, each with its email (username), full_name, ' +
      'api_key, avatar_url and the Zulip fields kept for compatibility (always null or false here). ' +
      "Other users' bots are among GET /users (is_bot, bot_owner_id), without their keys.",
    response: {
      required: ['bots'],
      properties: {
        bots: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['username', 'full_name', 'api_key', 'avatar_url', ...Object.keys(defaults)],
            properties: {
              username: { ...str, description: "The bot's email." },
              full_name: str,
              api_key: str,
              avatar_url: str,
              ...defaults,
            },
          },
        },
      },
    },
    example: {
      response: {
        bots: [{ username: 'deploy-bot@chat.example.com', full_name: 'Deploy bot', ...EXAMPLE_BOT }],
      },
    },
    view: async (_params, actor) => {
      const bots = await rows<User>(
        actor.db,
        'SELECT * FROM chat.users WHERE bot_owner_id = :userId AND is_bot AND is_active ORDER BY id',
        { userId: actor.user.id },
      );
      return { bots: bots.map(formatOwnedBot) };
    },
  }),
  endpoint({
    method: 'post',
    path: '/bots',
    operationId: 'createBot',
    summary: 'Create a bot owned by the caller: generic (1), incoming webhook (2) or outgoing webhook (3)',
    description:
      'Its email is `<short_name>-bot@<organization host>`. The organization policy decides who may: ' +
      '`can_create_bots_group` any bot, `can_create_write_only_bots_group` incoming-webhook bots ' +
      '(members by default; guests may not). Everyone gets a `realm_user` `add` event; the owner and ' +
      'the administrators a `realm_bot` `add` (with the API key and, for an outgoing webhook, its ' +
      'service: URL, interface and the token sent with each call). Only the generic interface (1) ' +
      'is offered for outgoing webhooks. A bot cannot create bots (`This endpoint does not accept ' +
      'bot requests.`).',
    params: {
      full_name: p.string(),
      short_name: p.string().default(''),
      bot_type: p.json<number>({ type: 'integer' }).default(BOT_TYPE.GENERIC),
      payload_url: p.json<string>(url).optional().describe('Required for outgoing-webhook bots.'),
      interface_type: p.json<number>({ type: 'integer' }).default(GENERIC_INTERFACE),
    },
    response: {
      required: ['user_id', 'api_key', 'avatar_url', ...Object.keys(defaults)],
      properties: { user_id: { type: 'integer' }, api_key: str, avatar_url: str, ...defaults },
    },
    example: {
      params: { full_name: 'Deploy bot', short_name: 'deploy', bot_type: 1 },
      response: { user_id: 20, ...EXAMPLE_BOT },
    },
    view: (params, actor) => createBot(actor, params),
  }),
  endpoint({
    method: 'patch',
    path: '/bots/{bot_id}',
    operationId: 'updateBot',
    summary: "Change a bot's name, owner or outgoing-webhook URL (its owner or an administrator)",
    description:
      "A new owner must be an active human of the organization whose role is at least the bot's " +
      "(a guest cannot own a member's bot: an owner reads its key). The old owner (unless an " +
      'administrator) gets `realm_bot` `delete`, the new one `realm_bot` `add`, the administrators ' +
      '`realm_bot` `update`; everyone `realm_user` `update` with `bot_owner_id`.',
    params: {
      bot_id: p.id(),
      full_name: p.string().optional(),
      bot_owner_id: p.json<number>({ type: 'integer' }).optional(),
      service_payload_url: p.json<string>(url).optional(),
      service_interface: p.json<number>({ type: 'integer' }).default(GENERIC_INTERFACE),
    },
    response: {
      required: [
        'full_name',
        'avatar_url',
        'service_interface',
        'service_payload_url',
        'config_data',
        ...Object.keys(defaults),
      ],
      properties: {
        full_name: str,
        avatar_url: str,
        service_interface: { type: 'integer' },
        service_payload_url: nullableStr,
        config_data: { type: 'null' },
        bot_owner: { ...str, description: "The owner's email." },
        ...defaults,
      },
    },
    example: {
      params: { bot_id: 20, full_name: 'Release bot' },
      response: {
        full_name: 'Release bot',
        avatar_url:
          'https://secure.gravatar.com/avatar/4f2a8b1c0d3e5f6a7b8c9d0e1f2a3b4c?d=identicon&version=1',
        service_interface: 1,
        service_payload_url: null,
        config_data: null,
        bot_owner: 'user8@chat.example.com',
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
      },
    },
    view: ({ bot_id, ...changes }, actor) => updateBot(actor, bot_id, changes),
  }),
  endpoint({
    method: 'delete',
    path: '/bots/{bot_id}',
    operationId: 'deactivateBot',
    summary: 'Deactivate a bot (its owner or an administrator); its API key stops working',
    description:
      'The bot\'s owner or an administrator (400 "Insufficient permission" otherwise; an id that is ' +
      'not a bot is 400 "No such bot"). Its API key stops working and its event queues end; every ' +
      'active user gets realm_user update with is_active false, and its owner and the ' +
      'administrators get realm_bot update. Deactivating an inactive bot changes nothing.',
    params: { bot_id: p.id() },
    example: { params: { bot_id: 21 }, response: {} },
    view: async ({ bot_id }, actor) => {
      await deactivateBot(actor, bot_id);
    },
  }),
  endpoint({
    method: 'post',
    path: '/bots/{bot_id}/api_key/regenerate',
    operationId: 'regenerateBotApiKey',
    summary: 'A new API key for a bot (its owner or an administrator); the old one stops working',
    description:
      'The bot\'s owner or an administrator (400 "Insufficient permission" otherwise; an id that is ' +
      'not a bot is 400 "No such bot"). The old key fails from the moment this answers; the new one ' +
      'is in the answer, and the owner and the administrators get realm_bot update with api_key.',
    params: { bot_id: p.id() },
    response: { required: ['api_key'], properties: { api_key: str } },
    example: { params: { bot_id: 20 }, response: { api_key: 'h8Tq2VbN4mXc6ZpL0sWd3RfY7gJk9EuA' } },
    view: async ({ bot_id }, actor) => ({ api_key: await regenerateBotApiKey(actor, bot_id) }),
  }),
];
