import type { Config, Sequelize } from '@muse/core';
import { sendMessage } from './message-send.ts';
import type { Realm } from '../lib/realms.ts';
import { createUser, type User } from '../lib/users.ts';
import { one, type Transaction } from '@muse/core';

// Zulip's onboarding: each organization has a Welcome Bot, and a new person gets a direct message
// from it, so nobody starts in front of an empty message list (zulip-terminal 0.7.0 cannot draw one).

const welcomeBotEmail = (realm: Pick<Realm, 'string_id'>) =>
  `welcome-bot@${realm.string_id || 'root'}.muse.invalid`;

/** Creates the organization's Welcome Bot (with its other system bots, at organization creation). */
export async function createWelcomeBot(db: Sequelize, realm: Realm, t: Transaction): Promise<User> {
  return createUser(db, realm, { email: welcomeBotEmail(realm), fullName: 'Welcome Bot', isBot: true }, t);
}

/**
 * The Welcome Bot's direct message to a person who just joined (bots get none). An organization
 * created before the bot existed has none, and sends nothing.
 */
export async function welcomeNewUser(db: Sequelize, config: Config, realm: Realm, user: User): Promise<void> {
  if (user.is_bot) return;
  const bot = await one<User>(
    db,
    'SELECT * FROM chat.users WHERE realm_id = :realmId AND lower(delivery_email) = :email AND is_bot AND is_active',
    { realmId: realm.id, email: welcomeBotEmail(realm) },
  );
  if (!bot) return;
  await sendMessage({ db, config, realm, user: bot }, { kind: 'direct', to: [user.id] }, welcomeText(realm));
}

function welcomeText(realm: Realm): string {
  return [
    `Hello, and welcome to **${realm.name}**! :wave:`,
    '',
    'Conversations here happen in channels, each split into topics; direct messages like this one ' +
      'are for one person or a few. The channels you joined are listed on the left.',
  ].join('\n');
}
