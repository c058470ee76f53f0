import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { legacyPresence, recordPresence } from '../lib/presence.ts';
import { activeUserIds, apiEmail } from '../lib/users.ts';
import { transact } from '@muse/core';

/**
 * A client's presence report. Only a report that changes what others see (back online, or active
 * again) sends a `presence` event to the organization; the minute-by-minute pings of an online
 * user are one small upsert each.
 */
export async function reportPresence(actor: Actor, active: boolean): Promise<void> {
  const { db, user, realm, config } = actor;
  await transact(db, async (t) => {
    const { row, changed } = await recordPresence(db, user, active, t);
    if (!changed) return;
    const audience = (await activeUserIds(db, realm.id, t)).filter((id) => id !== user.id);
    const legacy = legacyPresence(row);
    await sendEvent(db, t, audience, {
      type: 'presence',
      user_id: user.id,
      email: apiEmail(user, realm, config),
      server_timestamp: Date.now() / 1000,
      presence: { website: legacy.website },
    });
  });
}
