import type { ContentContext } from '../context.ts';
import { Routes } from '../http/routes.ts';
import { RESOURCE_DECLARATIONS } from './declarations/index.ts';
import { resourcesOpenApiFragment } from './openapi.ts';
import { addResourceRoutes } from './router.ts';

/** The handlers of every declared resource's operations. */
export function resourcesRoutes(ctx: ContentContext): Routes {
  const routes = new Routes();
  for (const declaration of RESOURCE_DECLARATIONS) addResourceRoutes(routes, ctx, declaration);
  return routes;
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
