import type { Config, Sequelize } from '@muse/core';
import type { Realm } from './lib/realms.ts';
import type { User } from './lib/users.ts';

/** Who acts, where: what every domain operation on behalf of an authenticated user needs. */
export interface Actor {
  db: Sequelize;
  config: Config;
  realm: Realm;
  user: User;
}
