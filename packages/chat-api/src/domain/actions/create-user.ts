import { adminRequired, JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEventsPerUser } from '../lib/events/log.ts';
import { MAX_FULL_NAME_LENGTH } from '../limits.ts';
import { welcomeNewUser } from './onboarding.ts';
import { joinDefaultStreams } from './streams.ts';
import {
  createUser,
  emailInUse,
  isAdmin,
  lockRealmForNewAccount,
  usersInRealm,
  type User,
} from '../lib/users.ts';
import { formatUser } from '../presenters/users.ts';
import { transact, type Transaction } from '@muse/core';

/** Zulip's `password_min_length`, as the registration answer states it. */
const MIN_PASSWORD_LENGTH = 6;

/**
 * POST /users: an administrator who also holds `can_create_users` creates a member account. It
 * joins the default channels (their subscription events), every active user hears of it
 * (`realm_user` `add`, formatted for each viewer), and its `date_joined` is the creation time until
 * its first login. The Welcome Bot then sends it Zulip's welcome direct message.
 */
export async function createUserByApi(
  actor: Actor,
  input: { email: string; password: string; full_name: string },
): Promise<number> {
  if (!isAdmin(actor.user)) throw adminRequired();
  if (!actor.user.can_create_users) throw new JsonableError('User not authorized to create users');
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new JsonableError(`Invalid email '${email}'`);
  const fullName = input.full_name.trim();
  if (fullName.length === 0) throw new JsonableError('Name too short!');
  if ([...fullName].length > MAX_FULL_NAME_LENGTH) throw new JsonableError('Name too long!');
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new JsonableError('The password is too weak.');
  const user = await transact(actor.db, async (t) => {
    await lockRealmForNewAccount(actor.db, actor.realm.id, t);
    if (await emailInUse(actor.db, actor.realm.id, email, t))
      throw new JsonableError('Email is already in use.');
    const user = await createUser(
      actor.db,
      actor.realm,
      { email, fullName, password: input.password, awaitingFirstLogin: true },
      t,
    );
    await joinDefaultStreams(actor.db, user, t);
    await announceNewAccount(actor, user, t);
    return user;
  });
  await welcomeNewUser(actor.db, actor.config, actor.realm, user);
  return user.id;
}

/** Every active member hears of a new account (`realm_user` `add`), formatted for what each may see. */
export async function announceNewAccount(actor: Actor, account: User, t: Transaction): Promise<void> {
  const viewers = (await usersInRealm(actor.db, actor.realm.id, t)).filter((u) => u.is_active);
  await sendEventsPerUser(
    actor.db,
    t,
    viewers.map((viewer) => [
      viewer.id,
      {
        type: 'realm_user',
        op: 'add',
        person: formatUser(account, viewer, actor.realm, actor.config, { clientGravatar: false }),
      },
    ]),
  );
}
