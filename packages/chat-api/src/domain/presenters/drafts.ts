import type { Sequelize } from '@muse/core';
import { rows, type Transaction } from '@muse/core';

export interface DraftRow {
  id: number;
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  last_edit_time: Date;
}

export function formatDraft(row: DraftRow): Record<string, unknown> {
  return {
    id: row.id,
    type: row.type,
    to: row.to,
    topic: row.topic,
    content: row.content,
    timestamp: Math.floor(new Date(row.last_edit_time).getTime() / 1000),
  };
}

/** The user's drafts, most recently edited first. */
export async function listDrafts(
  db: Sequelize,
  userId: number,
  t?: Transaction,
): Promise<Record<string, unknown>[]> {
  const found = await rows<DraftRow>(
    db,
    'SELECT * FROM chat.drafts WHERE user_id = :userId ORDER BY last_edit_time DESC, id DESC',
    { userId },
    t,
  );
  return found.map(formatDraft);
}
