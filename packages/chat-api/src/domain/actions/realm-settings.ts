import { JsonableError, ownerRequired } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { EMAIL_VISIBILITY } from '../limits.ts';
import { isOwner, usersInRealm } from '../lib/users.ts';
import type { Realm } from '../lib/realms.ts';
import { transact, exec, one } from '@muse/core';

/** The organization settings an owner may change with `PATCH /realm`. */
export interface RealmChanges {
  /** The visibility new accounts start with (each user may change theirs in `PATCH /settings`). */
  email_address_visibility?: number | undefined;
  /** Whether people who are not logged in may read the web-public channels. */
  enable_spectator_access?: boolean | undefined;
  /** Whether owners may change users' email addresses (`PATCH /users/{id}` `new_email`). */
  can_change_user_emails?: boolean | undefined;
}

const SETTINGS = ['email_address_visibility', 'enable_spectator_access', 'can_change_user_emails'] as const;

const VISIBILITIES: readonly number[] = Object.values(EMAIL_VISIBILITY);

/**
 * `PATCH /realm`: checks every change, writes those that differ, and tells everyone in the
 * organization in one `realm` `update_dict` event (none when nothing changed).
 */
export async function updateRealmSettings(actor: Actor, changes: RealmChanges): Promise<void> {
  if (!isOwner(actor.user)) throw ownerRequired();
  const visibility = changes.email_address_visibility;
  if (visibility !== undefined && !VISIBILITIES.includes(visibility))
    throw new JsonableError('Invalid email_address_visibility');
  if (changes.enable_spectator_access && !actor.config.MUSE_CHAT_WEB_PUBLIC_STREAMS)
    throw new JsonableError('Web-public channels are not enabled on this server.');
  const { db } = actor;
  await transact(db, async (t) => {
    const realm = await one<Realm>(
      db,
      'SELECT * FROM chat.realms WHERE id = :id FOR UPDATE',
      { id: actor.realm.id },
      t,
    );
    if (!realm) throw new Error('the organization of the request is gone');
    const changed = Object.fromEntries(
      SETTINGS.filter((name) => changes[name] !== undefined && changes[name] !== realm[name]).map((name) => [
        name,
        changes[name],
      ]),
    );
    const names = Object.keys(changed);
    if (names.length === 0) return;
    // The names come from SETTINGS, never from the caller.
    await exec(
      db,
      `UPDATE chat.realms SET ${names.map((n) => `${n} = :${n}`).join(', ')} WHERE id = :id`,
      { ...changed, id: realm.id },
      t,
    );
    const users = (await usersInRealm(db, realm.id)).filter((u) => u.is_active);
    await sendEvent(
      db,
      t,
      users.map((u) => u.id),
      { type: 'realm', op: 'update_dict', property: 'default', data: changed },
    );
  });
}
