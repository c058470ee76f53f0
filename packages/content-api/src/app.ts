import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import {
  createServiceApp,
  platformReadiness,
  type Config,
  type EventBus,
  onAppClose,
  type Logger,
  type Sequelize,
  verifyJsonText,
} from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { createAccessResolver, openapiDocument } from './openapi.ts';
import { errorHandler } from './http/errors.ts';
import { cacheValidatorRouteMatchers } from './http/validator-route-cache.ts';
import { authenticate } from './auth/authenticate.ts';
import { createContentServices, type ContentServices } from './services.ts';
import { resourcesRouter } from './resources/index.ts';
import { loginRouter } from './login/router.ts';
import { codeProvidersRouter } from './code-providers/router.ts';
import { usersRouter } from './users/router.ts';
import { adminRouter } from './admin/router.ts';
import { generatorsRouter } from './generators/routes.ts';
import { generationsRouter } from './generations/routes.ts';
import { WorkflowStarter } from './generations/starter.ts';
import { filesRouter } from './files/routes.ts';
import { channelRouter } from './channel/routes.ts';
import { paymentNotificationsRouter, paymentsRouter } from './payments/routes.ts';

/** Everything the content service needs from outside; tests pass their own. */
export interface ContentDeps {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: TemporalClient;
  events: EventBus;
}

export type ContentContext = ContentDeps & ContentServices;

export function createContentApp(deps: ContentDeps): Express {
  const context: ContentContext = { ...deps, ...createContentServices(deps.config, deps.logger) };
  const app = createServiceApp({
    name: 'content-api',
    logger: deps.logger,
    openapi: openapiDocument,
    trustProxy: deps.config.MUSE_TRUST_PROXY,
    readiness: platformReadiness(deps),
  });
  // A token is checked before the request's shape, so an anonymous caller learns nothing but 401.
  const access = createAccessResolver(openapiDocument);
  app.use(authenticate(context.db, context.tokens, (method, path) => access(method, path) === 'secured'));
  // Payment notifications read their signed body raw, so they are served before the JSON parser.
  app.use(paymentNotificationsRouter(context));
  app.use(express.json({ limit: '1mb', verify: verifyJsonText }));
  cacheValidatorRouteMatchers();
  app.use(
    OpenApiValidator.middleware({
      apiSpec: openapiDocument as never,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: false,
      validateSecurity: false,
      fileUploader: false,
    }),
  );

  // Feature routers are mounted here; each operation's `security` in the document decides whether it needs a token.
  app.use(loginRouter(context), codeProvidersRouter(context), usersRouter(context), adminRouter(context));
  app.use(paymentsRouter(context), resourcesRouter(context));
  // Workflow starts queued by submits are made before the process exits (see starter.ts).
  const starter = new WorkflowStarter(context);
  onAppClose(app, () => starter.drain());
  app.use(generatorsRouter(context), generationsRouter(context, starter), filesRouter(context));
  app.use(channelRouter());

  app.use(errorHandler(deps.logger));
  return app;
}
