import express, { type Express } from 'express';
import { createServiceApp, type Config, type EventBus, type Logger, type Sequelize } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { openapiDocument } from './openapi.ts';

/** Everything the messaging API needs from outside; tests pass their own. */
export interface ChatDeps {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: TemporalClient;
  events: EventBus;
}

export function createChatApp(deps: ChatDeps): Express {
  const app = createServiceApp({
    name: 'chat-api',
    logger: deps.logger,
    openapi: openapiDocument,
    readiness: {
      database: async () => void (await deps.db.query('SELECT 1')),
      temporal: async () => void (await deps.temporal.connection.workflowService.getSystemInfo({})),
    },
  });
  app.use(express.urlencoded({ extended: false }));
  // Zulip-style endpoints are mounted here.
  return app;
}
