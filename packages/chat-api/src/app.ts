import express, { Router, type Express } from 'express';
import {
  createServiceApp,
  platformReadiness,
  type Config,
  type EventBus,
  type Logger,
  type Sequelize,
} from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { temporalScheduler } from './domain/delivery-scheduler.ts';
import { QueueNotifier } from './domain/events.ts';
import { authenticate } from './http/auth.ts';
import { multipartFields } from './http/body.ts';
import { errorHandler, JsonableError } from './http/errors.ts';
import { openapiDocument } from './openapi.ts';
import { alertWordRoutes } from './views/alert-words.ts';
import { apiKeyRoutes } from './views/api-keys.ts';
import type { ChatRuntime } from './views/context.ts';
import { eventRoutes } from './views/events.ts';
import { draftRoutes } from './views/drafts.ts';
import { messageRoutes } from './views/messages.ts';
import { profileDataRoutes } from './views/profile-data.ts';
import { savedSnippetRoutes } from './views/saved-snippets.ts';
import { scheduledMessageRoutes } from './views/scheduled-messages.ts';
import { serverSettingsRoutes } from './views/server-settings.ts';
import { subscriptionRoutes } from './views/subscriptions.ts';
import { userRoutes } from './views/users.ts';

/** Everything the messaging API needs from outside; tests pass their own. */
export interface ChatDeps {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: TemporalClient;
  events: EventBus;
}

/** The Zulip-compatible routes under /api/v1: public ones first, then those behind Basic auth. */
function apiRouter(runtime: ChatRuntime): Router {
  const router = Router();
  apiKeyRoutes(router, runtime);
  serverSettingsRoutes(router, runtime);
  router.use(authenticate(runtime.db, runtime.config));
  subscriptionRoutes(router, runtime);
  alertWordRoutes(router, runtime);
  profileDataRoutes(router, runtime);
  eventRoutes(router, runtime);
  messageRoutes(router, runtime);
  scheduledMessageRoutes(router, runtime);
  draftRoutes(router, runtime);
  savedSnippetRoutes(router, runtime);
  userRoutes(router, runtime);
  router.use((req, _res, next) =>
    next(new JsonableError(`Unknown endpoint: ${req.method} ${req.path}`, { status: 404 })),
  );
  return router;
}

export function createChatApp(deps: ChatDeps): Express {
  const app = createServiceApp({
    name: 'chat-api',
    logger: deps.logger,
    openapi: openapiDocument,
    trustProxy: deps.config.MUSE_TRUST_PROXY,
    readiness: platformReadiness(deps),
  });
  const runtime: ChatRuntime = {
    db: deps.db,
    config: deps.config,
    logger: deps.logger,
    notifier: new QueueNotifier(deps.events),
    scheduler: temporalScheduler(deps.temporal, deps.config, deps.logger),
  };
  app.use(express.urlencoded({ extended: false, limit: '2mb' }));
  app.use(multipartFields);
  app.use('/api/v1', apiRouter(runtime));
  app.use(errorHandler((error) => deps.logger.error({ err: error }, 'unhandled error in chat-api')));
  return app;
}
