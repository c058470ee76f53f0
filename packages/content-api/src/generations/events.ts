import type { Transaction } from 'sequelize';
import { EventBus, type Sequelize } from '@muse/core';

/**
 * Every status change of a generated file is published on this event-bus channel, inside
 * the transaction that makes the change (so an event is only seen for a committed state).
 * Conversation sockets and SDK helpers subscribe to it and filter by `owner_id`.
 */
export const FILE_STATUS_CHANNEL = 'muse_file_status';

export interface FileStatusEvent {
  file_id: string;
  generation_id: string;
  owner_id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  error_message?: string;
}

export async function publishFileStatus(
  db: Sequelize,
  events: FileStatusEvent[],
  transaction: Transaction,
): Promise<void> {
  for (const event of events) await EventBus.publish(db, FILE_STATUS_CHANNEL, event, transaction);
}
