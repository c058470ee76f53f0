import express, { type Express, type RequestHandler } from 'express';
import {
  createServiceApp,
  platformReadiness,
  onAppClose,
  PayloadTooLargeError,
  verifyJsonText,
} from '@muse/core';
import type { ContentContext, ContentDeps } from './context.ts';
import { contentOpenApiDocument } from './openapi.ts';
import { authorizeOperation } from './http/authorize.ts';
import { errorHandler } from './http/errors.ts';
import { accessOf, createOperationResolver, operationPerRequest } from './http/operation.ts';
import { validateRequests } from './http/request-validation.ts';
import { dispatchOperations } from './http/routes.ts';
import { inSequence } from './http/sequence.ts';
import { authenticate } from './auth/authenticate.ts';
import { createContentServices } from './services.ts';
import { resourcesRoutes } from './resources/index.ts';
import { loginRoutes } from './login/router.ts';
import { codeProvidersRoutes } from './code-providers/router.ts';
import { usersRoutes } from './users/router.ts';
import { adminRoutes } from './admin/router.ts';
import { generatorsRoutes } from './generators/router.ts';
import { generationsRoutes } from './generations/router.ts';
import { WorkflowStarter } from './generations/starter.ts';
import { filesRoutes } from './files/router.ts';
import { conversationsRoutes } from './conversations/router.ts';
import { invitesRoutes } from './invites/router.ts';
import { socketsRoutes } from './sockets/router.ts';
import { PAYMENT_NOTIFICATIONS, paymentNotificationsRouter, paymentsRoutes } from './payments/router.ts';

const contexts = new WeakMap<Express, ContentContext>();

const JSON_LIMIT_BYTES = 1024 * 1024;

/**
 * JSON bodies up to JSON_LIMIT_BYTES. The parser, on a body past its limit, reads the rest off the
 * wire before it answers, however large; so a declared length past the limit is refused unread,
 * and a chunked body is answered 413 as soon as it grows past it (the error handler closes the
 * connection rather than read on), the parser's late answer ignored.
 */
function jsonBodies(): RequestHandler {
  const parse = express.json({ limit: JSON_LIMIT_BYTES, verify: verifyJsonText });
  const tooLarge = () => new PayloadTooLargeError('The request body is too large');
  return (req, res, next) => {
    // No body (most requests: every GET): nothing to parse, and `req.body` stays undefined, as the parser leaves it.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
      return next();
    if (!req.is('application/json')) return parse(req, res, next);
    if (Number(req.headers['content-length']) > JSON_LIMIT_BYTES) return next(tooLarge());
    let answered = false;
    const answer = (error?: unknown) => {
      if (answered) return;
      answered = true;
      req.off('data', count);
      next(error);
    };
    let received = 0;
    // Listening before the parser does, this sees each chunk first.
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > JSON_LIMIT_BYTES) answer(tooLarge());
    };
    req.on('data', count);
    parse(req, res, answer);
  };
}

/** The context an app was built with, for what serves beside it on its server (the conversation sockets). */
export function contentContextOf(app: Express): ContentContext {
  const context = contexts.get(app);
  if (!context) throw new Error('Not an app made by createContentApp');
  return context;
}

export function createContentApp(deps: ContentDeps): Express {
  const context: ContentContext = { ...deps, ...createContentServices(deps.config, deps.logger) };
  const openapiDocument = contentOpenApiDocument();
  const app = createServiceApp({
    name: 'content-api',
    logger: deps.logger,
    openapi: openapiDocument,
    asyncapi: '/asyncapi.json',
    trustProxy: deps.config.MUSE_TRUST_PROXY,
    readiness: platformReadiness(deps),
  });
  // A token and the caller's right to the operation are checked before the request's shape, so an
  // anonymous caller learns nothing but 401, and a non-administrator nothing but 403.
  const operationOf = operationPerRequest(createOperationResolver(openapiDocument));
  // Payment notifications read their signed body raw, so they are served before the JSON parser;
  // they are no documented operation, so no token is asked of them.
  app.use(PAYMENT_NOTIFICATIONS, paymentNotificationsRouter(context));
  // Workflow starts queued by submits are made before the process exits (see starter.ts).
  const starter = new WorkflowStarter(context);
  onAppClose(app, () => starter.drain());
  app.use(
    inSequence([
      authenticate(context.db, context.tokens, (req) => accessOf(operationOf(req)) === 'secured'),
      jsonBodies(),
      authorizeOperation(operationOf, openapiDocument),
      validateRequests(
        { apiSpec: openapiDocument, validateRequests: { allowUnknownQueryParameters: false } },
        operationOf,
      ),
      // Each area's handlers, called for the operation validation matched (its `security` in the
      // document decided above whether it needs a token).
      dispatchOperations(openapiDocument, [
        loginRoutes(context),
        codeProvidersRoutes(context),
        usersRoutes(context),
        adminRoutes(context),
        paymentsRoutes(context),
        resourcesRoutes(context),
        conversationsRoutes(context),
        invitesRoutes(context),
        generatorsRoutes(context),
        generationsRoutes(context, starter),
        filesRoutes(context),
        socketsRoutes(),
      ]),
    ]),
  );

  app.use(errorHandler(deps.logger));
  contexts.set(app, context);
  return app;
}
