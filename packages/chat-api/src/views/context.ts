import type { Request, Response } from 'express';
import type { Config, Logger, Sequelize } from '@muse/core';
import type { Actor } from '../domain/context.ts';
import type { QueueNotifier } from '../domain/events.ts';
import type { DeliveryScheduler } from '../domain/scheduled-messages.ts';

/** What views share: the process-wide pieces, created once by createChatApp. */
export interface ChatRuntime {
  db: Sequelize;
  config: Config;
  logger: Logger;
  notifier: QueueNotifier;
  /** Delivers scheduled messages at their time (Temporal). */
  scheduler: DeliveryScheduler;
}

export interface ViewContext extends Actor {
  runtime: ChatRuntime;
}

/** The context of an authenticated view (the auth middleware ran first). */
export function authed(runtime: ChatRuntime) {
  return (_req: Request, res: Response): ViewContext => ({ ...(res.locals.actor as Actor), runtime });
}

export function anonymous(runtime: ChatRuntime) {
  return (): ChatRuntime => runtime;
}
