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
    params: { keys },
    response: { required: ['storage'], properties: { storage } },
    view: async (params, actor) => ({ storage: await getBotStorage(actor, params.keys ?? null) }),
  }),
  endpoint({
    method: 'put',
    path: '/bot_storage',
    operationId: 'updateBotStorage',
    summary: 'Set entries (all or none); past the size limit, 400 "Request exceeds storage limit by …"',
    params: { storage: p.json<Record<string, string>>(storage) },
    view: async (params, actor) => {
      await putBotStorage(actor, params.storage);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/bot_storage',
    operationId: 'removeBotStorage',
    summary: 'Remove entries (all when no keys are given); a missing key removes nothing and is 400',
    params: { keys },
    view: async (params, actor) => {
      await removeBotStorage(actor, params.keys ?? null);
    },
  }),
];
