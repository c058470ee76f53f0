export { createContentApp, type ContentDeps } from './app.ts';
export { openapiDocument } from './openapi.ts';
import { fileURLToPath } from 'node:url';
import type { ServiceMigrations } from '@muse/core';

export const contentMigrations: ServiceMigrations = {
  schema: 'content',
  directory: fileURLToPath(new URL('../migrations', import.meta.url)),
};
