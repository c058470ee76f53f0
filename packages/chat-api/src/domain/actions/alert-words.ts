import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import { sendEvent } from '../lib/events/log.ts';
import { MAX_ALERT_WORD_LENGTH, MAX_ALERT_WORDS } from '../limits.ts';
import { alertWords } from '../lib/alert-words.ts';
import { exec, one, type Transaction, transact } from '@muse/core';

/** Words are trimmed; empty ones dropped; one already present (in any case) is ignored. */
function clean(words: string[]): string[] {
  const cleaned = words.map((w) => w.trim()).filter((w) => w !== '');
  const tooLong = cleaned.find((w) => [...w].length > MAX_ALERT_WORD_LENGTH);
  if (tooLong !== undefined) {
    throw new JsonableError(
      `alert_words[${words.indexOf(tooLong)}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`,
    );
  }
  return cleaned;
}

async function changed(db: Sequelize, userId: number, t: Transaction): Promise<string[]> {
  const words = await alertWords(db, userId, t);
  await sendEvent(db, t, [userId], { type: 'alert_words', alert_words: words });
  return words;
}

/** One statement for the whole list; past MAX_ALERT_WORDS in total the request changes nothing. */
export async function addAlertWords(db: Sequelize, userId: number, words: string[]): Promise<string[]> {
  const cleaned = clean(words);
  return transact(db, async (t) => {
    if (cleaned.length) {
      await exec(
        db,
        `INSERT INTO chat.alert_words (user_id, word)
         SELECT :userId, word FROM unnest(ARRAY[:cleaned]::text[]) WITH ORDINALITY AS w(word, n) ORDER BY n
         ON CONFLICT DO NOTHING`,
        { userId, cleaned },
        t,
      );
    }
    const total = await one<{ n: number }>(
      db,
      'SELECT count(*)::int AS n FROM chat.alert_words WHERE user_id = :userId',
      { userId },
      t,
    );
    if (total!.n > MAX_ALERT_WORDS) {
      throw new JsonableError(`Too many alert words (limit: ${MAX_ALERT_WORDS})`);
    }
    return changed(db, userId, t);
  });
}

export async function removeAlertWords(db: Sequelize, userId: number, words: string[]): Promise<string[]> {
  const lowered = words.map((w) => w.trim().toLowerCase());
  return transact(db, async (t) => {
    if (lowered.length) {
      await exec(
        db,
        'DELETE FROM chat.alert_words WHERE user_id = :userId AND lower(word) IN (:lowered)',
        { userId, lowered },
        t,
      );
    }
    return changed(db, userId, t);
  });
}
