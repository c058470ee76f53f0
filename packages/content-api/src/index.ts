import { fileURLToPath } from 'node:url';
import type { ServiceMigrations } from '@muse/core';

export { createContentApp, type ContentDeps, type ContentContext } from './app.ts';
export { openapiDocument, loadOpenApiDocument } from './openapi.ts';
export { createContentServices, type ContentServices } from './services.ts';
export { createTokenSigner, type TokenSigner, type TokenClaims } from './auth/tokens.ts';
export * as ledger from './ledger/ledger.ts';
export * from './permissions/permissions.ts';
export { LocalDiskStorage, type FileStorage } from './storage/storage.ts';

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
