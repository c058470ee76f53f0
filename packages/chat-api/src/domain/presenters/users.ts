import type { Config } from '@muse/core';
import { ROLE } from '../limits.ts';
import type { Realm } from '../lib/realms.ts';
import { apiEmail, avatarUrl, canSeeRealEmail, type ProfileEntry, type User } from '../lib/users.ts';

/** A user as Zulip's API presents it to `viewer`. */
export function formatUser(
  target: User,
  viewer: User,
  realm: Realm,
  config: Config,
  options: { clientGravatar: boolean; profile?: Map<number, ProfileEntry> | undefined },
): Record<string, unknown> {
  const visible = canSeeRealEmail(viewer, target);
  const formatted: Record<string, unknown> = {
    user_id: target.id,
    delivery_email: visible ? target.delivery_email : null,
    email: apiEmail(target, realm, config),
    full_name: target.full_name,
    date_joined: target.date_joined.toISOString(),
    is_active: target.is_active,
    is_owner: target.role === ROLE.OWNER,
    is_admin: target.role <= ROLE.ADMINISTRATOR,
    is_guest: target.role === ROLE.GUEST,
    is_bot: target.is_bot,
    bot_type: target.bot_type,
    role: target.role,
    timezone: target.timezone,
    // A client that can compute the external provider's picture itself is told so by null.
    avatar_url:
      options.clientGravatar && visible && target.avatar_source === 'G'
        ? null
        : avatarUrl(target, visible ? target.delivery_email : apiEmail(target, realm, config)),
    avatar_version: target.avatar_version,
    is_imported_stub: target.is_imported_stub,
  };
  // Zulip's marker of a profile deleted by DELETE /users/{id} with delete_profile (present only when
  // true); a deleted user is never active, so reactivating one ends it.
  if (target.avatar_source === 'D' && !target.is_active) formatted.is_deleted = true;
  if (target.is_bot) formatted.bot_owner_id = target.bot_owner_id;
  if (options.profile && !target.is_bot) {
    formatted.profile_data = Object.fromEntries(
      [...options.profile].map(([fieldId, entry]) => [String(fieldId), entry]),
    );
  }
  return formatted;
}
