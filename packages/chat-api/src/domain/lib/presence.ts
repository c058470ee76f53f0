import type { Config, Sequelize } from '@muse/core';
import type { Realm } from './realms.ts';
import { apiEmail, type User } from './users.ts';
import { PRESENCE_OFFLINE_THRESHOLD_SECONDS } from './realm-policy.ts';
import { one, rows, type Transaction } from '@muse/core';

/** One user's presence: when a client last saw them active, and last connected at all. */
export interface PresenceRow {
  user_id: number;
  last_active_time: Date | null;
  last_connected_time: Date | null;
  last_update_id: string;
}

/**
 * Records a presence report in one statement. The update id (what `last_update_id` pollers ask
 * for, and what triggers a `presence` event) only moves when others would now see something
 * different: the user came back online, or became active after being idle. Most minute-by-minute
 * pings of an online user touch only their timestamps.
 */
export async function recordPresence(
  db: Sequelize,
  user: User,
  active: boolean,
  t: Transaction,
): Promise<{ row: PresenceRow; changed: boolean }> {
  const found = await one<PresenceRow & { changed: boolean }>(
    db,
    `WITH prev AS (SELECT * FROM chat.presence WHERE user_id = :userId FOR UPDATE),
     decided AS (
       SELECT NOT EXISTS (SELECT 1 FROM prev)
           OR (SELECT last_connected_time < now() - make_interval(secs => :threshold) FROM prev)
           OR (:active AND (SELECT last_active_time IS NULL
                 OR last_active_time < now() - make_interval(secs => :threshold) FROM prev)) AS changed)
     INSERT INTO chat.presence AS p (user_id, realm_id, last_active_time, last_connected_time, last_update_id)
     SELECT :userId, :realmId, CASE WHEN :active THEN now() END, now(), nextval('chat.presence_updates')
     ON CONFLICT (user_id) DO UPDATE SET
       last_connected_time = now(),
       last_active_time = CASE WHEN :active THEN now() ELSE p.last_active_time END,
       last_update_id = CASE WHEN (SELECT changed FROM decided) THEN EXCLUDED.last_update_id ELSE p.last_update_id END
     RETURNING p.*, (SELECT changed FROM decided) AS changed`,
    { userId: user.id, realmId: user.realm_id, active, threshold: PRESENCE_OFFLINE_THRESHOLD_SECONDS },
    t,
  );
  if (!found) throw new Error('presence upsert returned nothing');
  const { changed, ...row } = found;
  return { row, changed };
}

/** The organization's presence rows changed after `afterUpdateId` (all recent ones for -1), within the history limit. */
export async function realmPresence(
  db: Sequelize,
  realmId: number,
  options: { afterUpdateId?: number | undefined; historyDays?: number | undefined } = {},
): Promise<{ rows: PresenceRow[]; lastUpdateId: number }> {
  const found = await rows<PresenceRow>(
    db,
    `SELECT p.user_id, p.last_active_time, p.last_connected_time, p.last_update_id
     FROM chat.presence p JOIN chat.users u ON u.id = p.user_id AND u.is_active
     WHERE p.realm_id = :realmId AND p.last_update_id > :after
       AND p.last_connected_time > now() - make_interval(days => :days)`,
    // Days are bounded: make_interval takes a 32-bit integer.
    {
      realmId,
      after: options.afterUpdateId ?? -1,
      days: Math.max(0, Math.min(options.historyDays ?? 14, 36500)),
    },
  );
  const max = await one<{ max: string | null }>(
    db,
    `SELECT max(last_update_id) AS max FROM chat.presence WHERE realm_id = :realmId`,
    { realmId },
  );
  return { rows: found, lastUpdateId: max?.max ? Number(max.max) : -1 };
}

export async function userPresence(db: Sequelize, userId: number): Promise<PresenceRow | undefined> {
  return one<PresenceRow>(db, 'SELECT * FROM chat.presence WHERE user_id = :userId', { userId });
}

const seconds = (d: Date | null) => (d ? Math.floor(new Date(d).getTime() / 1000) : 0);

/** Zulip's modern format: `{active_timestamp, idle_timestamp}`. */
export function modernPresence(row: PresenceRow): { active_timestamp: number; idle_timestamp: number } {
  return {
    active_timestamp: seconds(row.last_active_time),
    idle_timestamp: seconds(row.last_connected_time),
  };
}

/** Zulip's legacy format, per client plus `aggregated`; Muse keeps one record per user, reported as client `website`. */
export function legacyPresence(row: PresenceRow): Record<string, Record<string, unknown>> {
  const active =
    row.last_active_time !== null &&
    Date.now() / 1000 - seconds(row.last_active_time) < PRESENCE_OFFLINE_THRESHOLD_SECONDS;
  const status = active ? 'active' : 'idle';
  const timestamp = active ? seconds(row.last_active_time) : seconds(row.last_connected_time);
  return {
    aggregated: { client: 'website', status, timestamp },
    website: { client: 'website', status, timestamp, pushable: false },
  };
}

/** `presences` of `/register` and `POST /users/me/presence`: by user id (slim) or by API email (legacy). */
export function formatPresences(
  found: PresenceRow[],
  slim: boolean,
  users: Map<number, User>,
  realm: Realm,
  config: Config,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const row of found) {
    if (slim) out[String(row.user_id)] = modernPresence(row);
    else {
      const user = users.get(row.user_id);
      if (user) out[apiEmail(user, realm, config)] = legacyPresence(row);
    }
  }
  return out;
}
