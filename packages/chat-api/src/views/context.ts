import type { Config, Logger, Sequelize } from '@muse/core';
import type { Actor } from '../domain/context.ts';
import type { QueueNotifier } from '../domain/events.ts';

/** What views share: the process-wide pieces, created once by createChatApp. */
export interface ChatRuntime {
  db: Sequelize;
  config: Config;
  logger: Logger;
  notifier: QueueNotifier;
}

/** What an authenticated view receives: the caller, and the runtime. */
export interface ViewContext extends Actor {
  runtime: ChatRuntime;
}
