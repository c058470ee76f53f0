import type { Express, Router } from 'express';
import {
  createFileStorage,
  createServiceApp,
  onAppClose,
  platformReadiness,
  type Config,
  type MessageBus,
  type Logger,
  type Sequelize,
} from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { temporalScheduler } from './domain/delivery-scheduler.ts';
import { sweepStaleTriggers, temporalWebhookStarter } from './domain/outgoing-webhook-starter.ts';
import { QueueNotifier } from './domain/lib/events/notifier.ts';
import { messageEffectsThrough } from './domain/actions/message-effects.ts';
import { endpointRouter } from './http/endpoint.ts';
import { uploadDownloadRouter } from './http/uploads.ts';
import { errorHandler, JsonableError } from './http/errors.ts';
import { openapiDocument } from './openapi.ts';
import { createPushSender } from './push/index.ts';
import { videoProviders } from './video/index.ts';
import type { ChatRuntime } from './views/context.ts';
import { chatEndpoints } from './views/index.ts';

/** Everything the messaging API needs from outside; tests pass their own. */
export interface ChatDeps {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: TemporalClient;
  /** The bus of events between processes (MUSE_EVENT_BUS): event queues' wake-ups. */
  bus: MessageBus;
}

/** The Zulip-compatible routes under /api/v1; any other path there is a 404 in the error envelope. */
function apiRouter(runtime: ChatRuntime): Router {
  const router = endpointRouter(chatEndpoints, runtime);
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
    notifier: new QueueNotifier(deps.bus, deps.db),
    scheduler: temporalScheduler(deps.temporal, deps.config, deps.logger),
    webhooks: temporalWebhookStarter(deps.temporal, deps.config, deps.logger),
    push: createPushSender(deps.config, deps.logger),
    video: videoProviders(deps.config),
    storage: createFileStorage(deps.config),
  };
  messageEffectsThrough(deps.db, { webhooks: runtime.webhooks, push: runtime.push, logger: deps.logger });
  const stopSweeping = sweepStaleTriggers(runtime.webhooks, deps.db, deps.config, deps.logger);
  onAppClose(app, async () => stopSweeping());
  // No body parser here: a body is read by its route, after authentication (http/body.ts).
  app.use('/api/v1', apiRouter(runtime));
  app.use(uploadDownloadRouter(runtime));
  app.use(errorHandler(deps.logger));
  return app;
}
