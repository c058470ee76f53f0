import { getBotStorage, putBotStorage, removeBotStorage } from '../domain/lib/bot-storage.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';

const keys = p
  .json<string[]>({ type: 'array', items: { type: 'string' } })
  .optional()
  .describe('JSON list of keys; all keys when left out.');
const storage = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Key → value, both strings (the bots library stores JSON text).',
};

/**
 * The caller's key–value storage (Zulip's /bot_storage, used by the zulip_bots state handler;
 * not in Zulip's OpenAPI document). Keys and values together hold at most 10,000,000 characters.
 */
export const botStorageEndpoints = [
  endpoint({
    method: 'get',
    path: '/bot_storage',
    operationId: 'getBotStorage',
    summary: 'Read entries of the caller\'s storage; a missing key is 400 "Key does not exist."',
    description:
      'Any caller (bots use it through the zulip_bots state handler) reads its own storage: the ' +
      'given keys (a JSON list), or every entry when keys is left out. If any key is missing the ' +
      'whole read is 400 "Key does not exist.".',
    params: { keys },
    response: { required: ['storage'], properties: { storage } },
    example: { params: { keys: ['last_deploy'] }, response: { storage: { last_deploy: '"v2.4.1"' } } },
    view: async (params, actor) => ({ storage: await getBotStorage(actor, params.keys ?? null) }),
  }),
  endpoint({
    method: 'put',
    path: '/bot_storage',
    operationId: 'updateBotStorage',
    summary: 'Set entries (all or none); past the size limit, 400 "Request exceeds storage limit by …"',
    description:
      'storage is a JSON object of string keys to string values, written together or not at all ' +
      "(new keys added, existing ones replaced). Keys and values of the caller's storage may hold " +
      '10,000,000 characters in all; a write past that is 400 "Request exceeds storage limit by N ' +
      'characters…" and nothing is written.',
    params: { storage: p.json<Record<string, string>>(storage) },
    example: { params: { storage: { last_deploy: '"v2.4.1"', deploys_today: '3' } }, response: {} },
    view: async (params, actor) => {
      await putBotStorage(actor, params.storage);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/bot_storage',
    operationId: 'removeBotStorage',
    summary: 'Remove entries (all when no keys are given); a missing key removes nothing and is 400',
    description:
      "keys is a JSON list; without it every entry of the caller's storage is removed. If any given " +
      'key is missing it is 400 "Key does not exist." and nothing is removed.',
    params: { keys },
    example: { params: { keys: ['deploys_today'] }, response: {} },
    view: async (params, actor) => {
      await removeBotStorage(actor, params.keys ?? null);
    },
  }),
];
