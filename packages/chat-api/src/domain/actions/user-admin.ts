import { adminRequired, JsonableError, ownerRequired } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent, sendEventsPerUser, type ChatEvent } from '../lib/events/log.ts';
import { deleteQueuesOfUser } from '../lib/events/registration.ts';
import { MAX_DEACTIVATION_COMMENT_LENGTH, MAX_FULL_NAME_LENGTH, ROLE, ROLES } from '../limits.ts';
import { updateProfileData, type ProfileValue } from './profile-fields.ts';
import {
  avatarUrl,
  canSeeRealEmail,
  isAdmin,
  isOwner,
  userById,
  usersInRealm,
  type User,
} from '../lib/users.ts';
import { exec, one, rows, type Transaction, transact } from '@muse/core';

export interface UserChanges {
  full_name?: string | undefined;
  role?: number | undefined;
  profile_data?: { id: number; value: ProfileValue }[] | undefined;
  new_email?: string | undefined;
}

export interface DeactivationActions {
  delete_profile?: boolean;
  delete_public_channel_messages?: boolean;
  delete_private_channel_messages?: boolean;
  delete_direct_messages?: boolean;
}

/**
 * Serializes role and activation changes within an organization (a row lock on the realm; NO KEY,
 * so inserts that merely reference the organization are not held up),
 * then re-reads the acting and the target user under it: two administrators acting at once
 * must not each count the other as the remaining owner and leave the organization without one.
 */
async function lockForUserChange(
  actor: Actor,
  targetId: number,
  t: Transaction,
): Promise<{ me: User; target: User }> {
  await lockRealmUsers(actor, t);
  const [me, target] = await Promise.all([
    userById(actor.db, actor.realm.id, actor.user.id, t),
    userById(actor.db, actor.realm.id, targetId, t),
  ]);
  if (!me?.is_active || !isAdmin(me)) throw adminRequired();
  if (!target) throw new JsonableError('No such user');
  return { me, target };
}

/** The organization's row lock that role and activation changes take turns on. */
async function lockRealmUsers(actor: Actor, t: Transaction): Promise<void> {
  await exec(
    actor.db,
    'SELECT 1 FROM chat.realms WHERE id = :realmId FOR NO KEY UPDATE',
    { realmId: actor.realm.id },
    t,
  );
}

async function activeOwnerCount(actor: Actor, t: Transaction): Promise<number> {
  const row = await one<{ n: string }>(
    actor.db,
    'SELECT count(*) AS n FROM chat.users WHERE realm_id = :realmId AND role = 100 AND is_active AND NOT is_bot',
    { realmId: actor.realm.id },
    t,
  );
  return Number(row?.n ?? 0);
}

/** Everyone in the organization hears about a user change; only some may see a new real email. */
async function announce(
  actor: Actor,
  person: Record<string, unknown>,
  t: Transaction,
  target?: User,
): Promise<void> {
  const users = (await usersInRealm(actor.db, actor.realm.id)).filter((u) => u.is_active);
  if (target && 'delivery_email' in person) {
    const visible = users.filter((u) => canSeeRealEmail(u, target));
    const event: ChatEvent = { type: 'realm_user', op: 'update', person };
    await sendEventsPerUser(
      actor.db,
      t,
      visible.map((u) => [u.id, event]),
    );
    return;
  }
  await sendEvent(
    actor.db,
    t,
    users.map((u) => u.id),
    { type: 'realm_user', op: 'update', person },
  );
}

/** Checks the role rules before anything is written. */
async function checkRoleChange(
  actor: Actor,
  me: User,
  target: User,
  role: number,
  t: Transaction,
): Promise<void> {
  if (!ROLES.includes(role)) throw new JsonableError('Invalid role');
  if ((role === ROLE.OWNER || target.role === ROLE.OWNER) && !isOwner(me)) throw ownerRequired();
  if (target.role === ROLE.OWNER && role !== ROLE.OWNER && (await activeOwnerCount(actor, t)) <= 1) {
    throw new JsonableError('The owner permission cannot be removed from the only organization owner.');
  }
  // Our spec's rule: a guest becomes a member (or moderator) before becoming an administrator.
  if (target.role === ROLE.GUEST && role <= ROLE.ADMINISTRATOR) {
    throw new JsonableError(
      'A guest cannot be made an administrator directly; change the role to member first.',
    );
  }
}

/** PATCH /users/{user_id}: validates every change, then applies them in one transaction. */
export async function updateUser(actor: Actor, found: User, changes: UserChanges): Promise<void> {
  if (!isAdmin(actor.user)) throw adminRequired();
  const { db } = actor;
  await transact(db, async (t) => {
    const { me, target } = await lockForUserChange(actor, found.id, t);
    if (changes.role !== undefined && changes.role !== target.role)
      await checkRoleChange(actor, me, target, changes.role, t);
    const fullName = changes.full_name?.trim();
    if (fullName !== undefined) {
      if (fullName.length === 0) throw new JsonableError('Name too short!');
      if ([...fullName].length > MAX_FULL_NAME_LENGTH) throw new JsonableError('Name too long!');
    }
    if (changes.new_email !== undefined) {
      // The organization's setting (PATCH /realm) or the right the server gave this owner (create-user).
      if (!isOwner(me) || !(actor.realm.can_change_user_emails || me.can_change_user_emails)) {
        throw new JsonableError('User not authorized to change email addresses');
      }
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(changes.new_email))
        throw new JsonableError('Invalid email address.');
      const taken = await one(
        db,
        'SELECT 1 FROM chat.users WHERE realm_id = :realmId AND lower(delivery_email) = lower(:email) AND id <> :id',
        { realmId: actor.realm.id, email: changes.new_email, id: target.id },
        t,
      );
      if (taken) throw new JsonableError('Email is already in use.');
    }
    if (changes.role !== undefined && changes.role !== target.role) {
      await exec(
        db,
        'UPDATE chat.users SET role = :role WHERE id = :id',
        { role: changes.role, id: target.id },
        t,
      );
      await announce(actor, { user_id: target.id, role: changes.role }, t);
    }
    if (fullName !== undefined && fullName !== target.full_name) {
      await exec(
        db,
        'UPDATE chat.users SET full_name = :fullName WHERE id = :id',
        { fullName, id: target.id },
        t,
      );
      await announce(actor, { user_id: target.id, full_name: fullName }, t);
    }
    if (changes.new_email !== undefined) {
      await exec(
        db,
        'UPDATE chat.users SET delivery_email = :email WHERE id = :id',
        { email: changes.new_email, id: target.id },
        t,
      );
      await announce(actor, { user_id: target.id, delivery_email: changes.new_email }, t, target);
    }
    if (changes.profile_data) await updateProfileData(db, me, target, changes.profile_data, t);
  });
}

async function deleteMessages(
  actor: Actor,
  userId: number,
  actions: DeactivationActions,
  t: Transaction,
): Promise<void> {
  const kinds: string[] = [];
  if (actions.delete_public_channel_messages) kinds.push('(m.stream_id IS NOT NULL AND NOT s.invite_only)');
  if (actions.delete_private_channel_messages) kinds.push('(m.stream_id IS NOT NULL AND s.invite_only)');
  if (actions.delete_direct_messages) kinds.push('(m.stream_id IS NULL)');
  if (kinds.length === 0) return;
  await exec(
    actor.db,
    `DELETE FROM chat.messages m USING chat.messages m2 LEFT JOIN chat.streams s ON s.id = m2.stream_id
     WHERE m.id = m2.id AND m.sender_id = :userId AND (${kinds.join(' OR ')})`,
    { userId },
    t,
  );
}

/** The requested deletions: messages, and the profile (name, picture, custom fields). */
async function applyActions(
  actor: Actor,
  target: User,
  actions: DeactivationActions,
  t: Transaction,
): Promise<void> {
  await deleteMessages(actor, target.id, actions, t);
  if (!actions.delete_profile) return;
  const removed = await one<User>(
    actor.db,
    `UPDATE chat.users SET full_name = 'Deleted user', avatar_source = 'D', avatar_version = avatar_version + 1
     WHERE id = :id RETURNING *`,
    { id: target.id },
    t,
  );
  await exec(actor.db, 'DELETE FROM chat.custom_profile_values WHERE user_id = :id', { id: target.id }, t);
  await announce(actor, { user_id: target.id, full_name: 'Deleted user' }, t);
  const picture = avatarUrl(removed!, removed!.delivery_email);
  await announce(
    actor,
    {
      user_id: target.id,
      avatar_source: 'G',
      avatar_url: picture,
      avatar_url_medium: picture,
      avatar_version: removed!.avatar_version,
    },
    t,
  );
}

async function deactivateOne(
  actor: Actor,
  target: User,
  actions: DeactivationActions,
  t: Transaction,
): Promise<void> {
  await applyActions(actor, target, actions, t);
  await exec(actor.db, 'UPDATE chat.users SET is_active = false WHERE id = :id', { id: target.id }, t);
  await deleteQueuesOfUser(actor.db, target.id, t);
  await announce(actor, { user_id: target.id, is_active: false }, t);
}

/**
 * DELETE /users/{user_id}: the user's bots are deactivated first, the requested actions are
 * applied to them and then to the user. The notification comment is recorded in the log
 * (this server sends no email).
 */
export async function deactivateUser(
  actor: Actor,
  found: User,
  actions: DeactivationActions,
  comment: string | undefined,
  log: (message: string, data: object) => void,
): Promise<void> {
  if (!isAdmin(actor.user)) throw adminRequired();
  if (comment !== undefined && [...comment].length > MAX_DEACTIVATION_COMMENT_LENGTH) {
    throw new JsonableError(
      `deactivation_notification_comment is too long (limit: ${MAX_DEACTIVATION_COMMENT_LENGTH} characters)`,
    );
  }
  await transact(actor.db, async (t) => {
    const { me, target } = await lockForUserChange(actor, found.id, t);
    if (target.role === ROLE.OWNER && !isOwner(me)) throw ownerRequired();
    // A deactivated user can still have its profile (and messages) removed: the actions apply.
    if (!target.is_active) {
      if (!Object.values(actions).some(Boolean)) throw new JsonableError('User is already deactivated');
      await applyActions(actor, target, actions, t);
      return;
    }
    if (target.role === ROLE.OWNER && !target.is_bot && (await activeOwnerCount(actor, t)) <= 1) {
      throw new JsonableError('Cannot deactivate the only organization owner');
    }
    const bots = await rows<User>(
      actor.db,
      'SELECT * FROM chat.users WHERE bot_owner_id = :id AND is_active',
      { id: target.id },
      t,
    );
    for (const bot of bots) await deactivateOne(actor, bot, actions, t);
    await deactivateOne(actor, target, actions, t);
  });
  if (comment) log('deactivation notification comment', { user_id: found.id, comment });
}

/** DELETE /users/me: the caller deactivates their own account and their bots; never the only owner. */
export async function deactivateSelf(actor: Actor): Promise<void> {
  await transact(actor.db, async (t) => {
    await lockRealmUsers(actor, t);
    if (isOwner(actor.user) && !actor.user.is_bot && (await activeOwnerCount(actor, t)) <= 1)
      throw new JsonableError('Cannot deactivate the only organization owner', {
        code: 'CANNOT_DEACTIVATE_LAST_USER',
        extra: { is_last_owner: true, entity: 'organization owner' },
      });
    const bots = await rows<User>(
      actor.db,
      'SELECT * FROM chat.users WHERE bot_owner_id = :id AND is_active',
      { id: actor.user.id },
      t,
    );
    for (const bot of bots) await deactivateOne(actor, bot, {}, t);
    await deactivateOne(actor, actor.user, {}, t);
  });
}

export async function reactivateUser(actor: Actor, found: User): Promise<void> {
  if (!isAdmin(actor.user)) throw adminRequired();
  await transact(actor.db, async (t) => {
    const { target } = await lockForUserChange(actor, found.id, t);
    if (target.is_active) throw new JsonableError('User is already active');
    await exec(actor.db, 'UPDATE chat.users SET is_active = true WHERE id = :id', { id: target.id }, t);
    await announce(actor, { user_id: target.id, is_active: true }, t);
  });
}
