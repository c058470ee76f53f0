import express, { type Router } from 'express';
import type { ContentContext } from '../context.ts';
import { RESOURCE_DECLARATIONS } from './declarations/index.ts';
import { resourcesOpenApiFragment } from './openapi.ts';
import { createResourceRouter } from './router.ts';

/** The routes of every declared resource, mounted at the app's root (paths carry /api/v1). */
export function resourcesRouter(ctx: ContentContext): Router {
  const router = express.Router();
  for (const declaration of RESOURCE_DECLARATIONS) router.use(createResourceRouter(ctx, declaration));
  return router;
}

/** The generated OpenAPI fragment of every declared resource. */
export const resourcesOpenApi = () => resourcesOpenApiFragment(RESOURCE_DECLARATIONS);

export {
  defineResource,
  registerReferenceTarget,
  type ResourceDeclaration,
  type FieldDeclaration,
  type ResourceHooks,
} from './define.ts';
export { assertReferenceReadable, authorizeRead, authorizeWrite } from './access.ts';
export { conversationChannel } from '../conversations/messages.ts';
