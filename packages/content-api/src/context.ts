import type { Config, Logger, MessageBus, Sequelize } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import type { ContentServices } from './services.ts';

/** Everything the content service needs from outside; tests pass their own. */
export interface ContentDeps {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: TemporalClient;
  /** The bus of events between processes (MUSE_EVENT_BUS), which also carries the database's own announcements (migration 0800). */
  bus: MessageBus;
}

/** What routers and handlers share: the outside pieces and the service's own collaborators, built once by createContentApp. */
export type ContentContext = ContentDeps & ContentServices;
