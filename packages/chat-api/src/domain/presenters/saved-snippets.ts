import type { Sequelize } from '@muse/core';
import { rows, type Transaction } from '@muse/core';

export interface SnippetRow {
  id: number;
  title: string;
  content: string;
  date_created: Date;
}

export function formatSnippet(row: SnippetRow): Record<string, unknown> {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    date_created: Math.floor(new Date(row.date_created).getTime() / 1000),
  };
}

export async function listSnippets(
  db: Sequelize,
  userId: number,
  t?: Transaction,
): Promise<Record<string, unknown>[]> {
  const found = await rows<SnippetRow>(
    db,
    'SELECT * FROM chat.saved_snippets WHERE user_id = :userId ORDER BY id',
    { userId },
    t,
  );
  return found.map(formatSnippet);
}
