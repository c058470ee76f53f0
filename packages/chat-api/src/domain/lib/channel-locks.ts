import type { Sequelize } from '@muse/core';
import { exec, type Transaction } from '@muse/core';

/*
 * One lock per channel, held to the end of the transaction, so that who is in a channel and what
 * is sent to it change in one order:
 *
 * - a subscription change (join, leave, a user added or removed by someone else) takes it
 *   exclusively, then reads the members it announces (`subscription add`'s `subscribers`,
 *   `peer_add`, `peer_remove`): every change of the channel that committed before is in them,
 *   and the next change waits for this one;
 * - a message sent to the channel, and a move of messages into or out of it, take it shared: a
 *   send's message id, the subscription spans that say who has it and the event naming them
 *   are all settled while no subscription of the channel can change; sends do not wait for
 *   each other.
 *
 * Lock order: a transaction takes its channel locks before any row lock, several at once in
 * ascending channel id (lockChannels sorts). The exceptions only ever wait on a channel lock
 * while holding rows nobody holding a channel lock waits for: a scheduled delivery or a bot's
 * reply holds its own row (the scheduled message, the trigger), and a move holds the message
 * it moves, which no subscription change touches.
 *
 * Transaction-scoped advisory locks rather than `SELECT … FOR SHARE` of the channel's row: a
 * row lock is written into the row (and into a multixact when sends share it), so every send
 * would write and WAL-log the channel row; an advisory lock is only in the lock table.
 */

/** Advisory-lock namespace of channels (the key is the channel id). */
const CHANNEL_LOCK = 0x6368616e;

export type ChannelLockMode = 'exclusive' | 'shared';

/** Takes the channels' locks, in ascending id, until the transaction ends. */
export async function lockChannels(
  db: Sequelize,
  t: Transaction,
  streamIds: Iterable<number>,
  mode: ChannelLockMode,
): Promise<void> {
  const ids = [...new Set(streamIds)].sort((a, b) => a - b);
  if (ids.length === 0) return;
  const lock = mode === 'exclusive' ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared';
  // One statement: unnest yields the sorted array in its order, and each lock is taken as its row is.
  await exec(db, `SELECT ${lock}(${CHANNEL_LOCK}, id) FROM unnest(ARRAY[:ids]::int[]) AS id`, { ids }, t);
}
