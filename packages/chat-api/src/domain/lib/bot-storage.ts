import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { exec, one, rows, transact } from '@muse/core';

/** Zulip's USER_STATE_SIZE_LIMIT: characters of keys and values together, per bot. */
export const BOT_STORAGE_SIZE_LIMIT = 10_000_000;

const keyMissing = () => new JsonableError('Key does not exist.');

/** GET /bot_storage: the given keys (all when none are given); any missing key refuses the whole read. */
export async function getBotStorage(actor: Actor, keys: string[] | null): Promise<Record<string, string>> {
  const found = await rows<{ key: string; value: string }>(
    actor.db,
    `SELECT key, value FROM chat.bot_storage WHERE bot_id = :botId ${keys ? 'AND key IN (:keys)' : ''}`,
    { botId: actor.user.id, keys: keys && keys.length ? keys : [''] },
  );
  const byKey = new Map(found.map((e) => [e.key, e.value]));
  const storage: Record<string, string> = {};
  for (const key of keys ?? [...byKey.keys()]) {
    const value = byKey.get(key);
    if (value === undefined) throw keyMissing();
    storage[key] = value;
  }
  return storage;
}

/**
 * PUT /bot_storage: all entries or none. The size after the change (characters of every key and
 * value) may not pass the limit; the caller's writes take turns, so two cannot both fit.
 */
export async function putBotStorage(actor: Actor, entries: Record<string, string>): Promise<void> {
  const keys = Object.keys(entries);
  if (keys.length === 0) return;
  await transact(actor.db, async (t) => {
    await exec(
      actor.db,
      'SELECT 1 FROM chat.users WHERE id = :botId FOR NO KEY UPDATE',
      { botId: actor.user.id },
      t,
    );
    const size = await one<{ total: string; replaced: string }>(
      actor.db,
      `SELECT COALESCE(sum(char_length(key) + char_length(value)), 0) AS total,
              COALESCE(sum(char_length(key) + char_length(value)) FILTER (WHERE key IN (:keys)), 0) AS replaced
       FROM chat.bot_storage WHERE bot_id = :botId`,
      { botId: actor.user.id, keys },
      t,
    );
    const added = Object.entries(entries).reduce((n, [k, v]) => n + [...k].length + [...v].length, 0);
    const after = Number(size!.total) - Number(size!.replaced) + added;
    if (after > BOT_STORAGE_SIZE_LIMIT)
      throw new JsonableError(
        `Request exceeds storage limit by ${after - BOT_STORAGE_SIZE_LIMIT} characters. ` +
          `The limit is ${BOT_STORAGE_SIZE_LIMIT} characters.`,
      );
    await exec(
      actor.db,
      `INSERT INTO chat.bot_storage (bot_id, key, value)
       SELECT :botId, k, v FROM unnest(CAST(:keys AS text[]), CAST(:values AS text[])) AS e(k, v)
       ON CONFLICT (bot_id, key) DO UPDATE SET value = EXCLUDED.value`,
      { botId: actor.user.id, keys: pgArray(keys), values: pgArray(Object.values(entries)) },
      t,
    );
  });
}

/** DELETE /bot_storage: the given keys (all when none are given); a missing key removes nothing. */
export async function removeBotStorage(actor: Actor, keys: string[] | null): Promise<void> {
  await transact(actor.db, async (t) => {
    if (keys === null) {
      await exec(actor.db, 'DELETE FROM chat.bot_storage WHERE bot_id = :botId', { botId: actor.user.id }, t);
      return;
    }
    const unique = [...new Set(keys)];
    if (unique.length === 0) return;
    const removed = await rows(
      actor.db,
      'DELETE FROM chat.bot_storage WHERE bot_id = :botId AND key IN (:keys) RETURNING key',
      { botId: actor.user.id, keys: unique },
      t,
    );
    if (removed.length < unique.length) throw keyMissing();
  });
}

/** A Postgres array literal of texts (each quoted and escaped), for unnest. */
function pgArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
