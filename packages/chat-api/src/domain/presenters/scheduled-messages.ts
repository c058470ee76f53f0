import type { Sequelize } from '@muse/core';
import { rows, type Transaction } from '@muse/core';

export interface ScheduledRow {
  id: number;
  realm_id: number;
  sender_id: number;
  type: 'stream' | 'private';
  stream_id: number | null;
  recipient_ids: number[] | null;
  topic: string;
  content: string;
  rendered_content: string;
  read_by_sender: boolean;
  deliver_at: Date;
  failed: boolean;
  failure_message: string | null;
  delivered_at: Date | null;
  delivered_message_id: string | null;
  version: number;
}

const toSeconds = (date: Date) => Math.floor(new Date(date).getTime() / 1000);

export function formatScheduledMessage(row: ScheduledRow): Record<string, unknown> {
  return {
    scheduled_message_id: row.id,
    type: row.type,
    to: row.type === 'stream' ? row.stream_id : (row.recipient_ids ?? []),
    ...(row.type === 'stream' ? { topic: row.topic } : {}),
    content: row.content,
    rendered_content: row.rendered_content,
    scheduled_delivery_timestamp: toSeconds(row.deliver_at),
    failed: row.failed,
  };
}

/** The caller's undelivered scheduled messages, soonest first. */
export async function listScheduledMessages(
  db: Sequelize,
  userId: number,
  t?: Transaction,
): Promise<Record<string, unknown>[]> {
  const found = await rows<ScheduledRow>(
    db,
    `SELECT * FROM chat.scheduled_messages WHERE sender_id = :userId AND delivered_at IS NULL
      ORDER BY deliver_at, id`,
    { userId },
    t,
  );
  return found.map(formatScheduledMessage);
}
