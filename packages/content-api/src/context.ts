import type { Config, EventBus, Logger, MessageBus, Sequelize } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import type { ContentServices } from './services.ts';

/** Everything the content service needs from outside; tests pass their own. */
export interface ContentDeps {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: TemporalClient;
  /** Postgres LISTEN/NOTIFY: the database triggers' announcements (migration 0800). */
  events: EventBus;
  /** The bus the service announces on, when it is not `events` (MUSE_EVENT_BUS=redis). */
  bus?: MessageBus;
}

/** What routers and handlers share: the outside pieces and the service's own collaborators, built once by createContentApp. */
export type ContentContext = ContentDeps & ContentServices;
