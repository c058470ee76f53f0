/*
 * The log's settled position: the highest position below which every position has committed or is
 * void for good. Positions come from one sequence and a later one may commit first, so this is the
 * bound every reader delivers up to (and a new queue starts at); finding it voids the gaps left by
 * transactions that rolled back. Remembered per database handle, so each search starts where the
 * last one ended.
 */
import type { Sequelize } from '@muse/core';
import { exec, one, rows } from '@muse/core';

/** Per database handle: a position known settled (see settledPosition). */
const knownSettled = new WeakMap<Sequelize, number>();
/** Positions read per step while looking for the settled position. */
const SETTLE_STEP = 500;

/**
 * The log's settled position: every position up to it is committed or void for good, so readers
 * may deliver entries up to it and nothing can appear below it later. A gap below a committed
 * entry belongs to a transaction still committing, or to one that rolled back (or a sequence
 * value lost in a crash): a void entry is inserted there, which waits for the transaction
 * writing that position and lands only if there is none. The search starts at what this process
 * already knows (at first, the last position any queue acknowledged, settled when delivered),
 * or where pruning stopped (`chat.event_log_pruned`, settled too), whichever is higher.
 */
export async function settledPosition(db: Sequelize): Promise<number> {
  let settled =
    knownSettled.get(db) ??
    Number(
      (await one<{ p: string }>(db, 'SELECT COALESCE(max(acked_position), 0) AS p FROM chat.event_queues'))!
        .p,
    );
  for (;;) {
    const found = await rows<{ start: string; position: string | null }>(
      db,
      `WITH s AS (SELECT GREATEST(CAST(:settled AS bigint), (SELECT position FROM chat.event_log_pruned)) AS p)
       SELECT s.p AS start, l.position FROM s LEFT JOIN LATERAL (
         SELECT position FROM chat.event_log WHERE position > s.p ORDER BY position LIMIT :step) l ON true
       ORDER BY l.position`,
      { settled, step: SETTLE_STEP },
    );
    settled = Number(found[0]!.start);
    const positions = found.flatMap((row) => (row.position === null ? [] : [Number(row.position)]));
    let next = 0;
    while (next < positions.length && positions[next] === settled + 1) settled = positions[next++]!;
    if (next === positions.length) {
      if (positions.length < SETTLE_STEP) break;
      continue;
    }
    // A gap below a committed entry: wait for whoever writes it, or void it.
    await exec(
      db,
      `INSERT INTO chat.event_log (realm_id, position, event_type, event) VALUES (0, :gap, 'void', '{}')
       ON CONFLICT (position) DO NOTHING`,
      { gap: settled + 1 },
    );
  }
  knownSettled.set(db, Math.max(knownSettled.get(db) ?? 0, settled));
  return settled;
}
