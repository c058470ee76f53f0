import type { Sequelize } from '@muse/core';
import { rows, type Transaction } from '@muse/core';

export async function alertWords(db: Sequelize, userId: number, t?: Transaction): Promise<string[]> {
  const found = await rows<{ word: string }>(
    db,
    'SELECT word FROM chat.alert_words WHERE user_id = :userId ORDER BY created_at, word',
    { userId },
    t,
  );
  return found.map((row) => row.word);
}
