import { fileURLToPath } from 'node:url';
import type { ServiceMigrations } from '@muse/core';

export { createContentApp } from './app.ts';
export type { ContentDeps, ContentContext } from './context.ts';
export { contentOpenApiDocument, loadOpenApiDocument } from './openapi.ts';
export { createContentServices, type ContentServices } from './services.ts';
export { createTokenSigner, type TokenSigner, type TokenClaims } from './auth/tokens.ts';
export * as ledger from './ledger/ledger.ts';
export * from './permissions/permissions.ts';
export * from './generators/generators.ts';
export * from './generators/parameters.ts';
export * from './generators/adapters/types.ts';
export { adapterFor, ADAPTER_TYPES, type AdapterType } from './generators/adapters/registry.ts';
export { downloadBytes } from './generators/adapters/http.ts';
export { FILE_STATUS_CHANNEL, type FileStatusEvent } from './generations/events.ts';
export { GENERATION_WORKFLOW, workflowIdOf } from './generations/contract.ts';
export { failGeneration } from './generations/fail.ts';
export { createLinkSigner, type LinkSigner } from './files/signed-links.ts';

export const contentMigrations: ServiceMigrations = {
  schema: 'content',
  directory: fileURLToPath(new URL('../migrations', import.meta.url)),
};
export * from './server-config/server-config.ts';
export * from './listing/listing.ts';
export {
  authenticate,
  currentUser,
  requireAdmin,
  requirePermission,
  loadUser,
  type CurrentUser,
} from './auth/authenticate.ts';
export {
  defineResource,
  registerReferenceTarget,
  assertReferenceReadable,
  authorizeRead,
  authorizeWrite,
  conversationChannel,
  type ResourceDeclaration,
  type FieldDeclaration,
  type ResourceHooks,
} from './resources/index.ts';
export {
  prepareContentService,
  applyBootstrapFile,
  parseBootstrap,
  BootstrapError,
} from './bootstrap/bootstrap.ts';
export { BOOTSTRAP_SECTIONS, type BootstrapSection, type BootstrapContext } from './bootstrap/sections.ts';
export { grantAdministrator } from './bootstrap/admins.ts';
export { isMainlandMobile } from './login/phone.ts';
export { startStrandedGenerations } from './generations/reconcile.ts';
export { appendMessage, type ConversationMessage, type ConversationEvent } from './conversations/messages.ts';
export { attachConversationSockets, type ConversationSockets } from './sockets/attach.ts';
export { asyncapiDocument } from './sockets/protocol.ts';
export {
  createProvider,
  updateProvider,
  deleteProvider,
  assertTypeAllowed,
  type ProviderRow,
} from './code-providers/store.ts';
export { resealSecrets } from './secrets/reseal.ts';
export { reconcilePayment } from './payments/reconcile.ts';
