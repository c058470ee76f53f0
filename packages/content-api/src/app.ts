import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { createServiceApp, type Config, type EventBus, type Logger, type Sequelize } from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { openapiDocument } from './openapi.ts';
import { errorHandler } from './http/errors.ts';

/** Everything the content service needs from outside; tests pass their own. */
export interface ContentDeps {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: TemporalClient;
  events: EventBus;
}

export function createContentApp(deps: ContentDeps): Express {
  const app = createServiceApp({
    name: 'content-api',
    logger: deps.logger,
    openapi: openapiDocument,
    readiness: {
      database: async () => void (await deps.db.query('SELECT 1')),
      temporal: async () => void (await deps.temporal.connection.workflowService.getSystemInfo({})),
    },
  });
  app.use(express.json({ limit: '1mb' }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: openapiDocument as never,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: false,
      validateSecurity: false,
    }),
  );
  // Feature routers are mounted here.
  app.use(errorHandler(deps.logger));
  return app;
}
