import { fileURLToPath } from 'node:url';
import type { ServiceMigrations } from '@muse/core';

export { createChatApp, type ChatDeps } from './app.ts';
export { openapiDocument } from './openapi.ts';
export { chatEndpoints } from './views/index.ts';

export const chatMigrations: ServiceMigrations = {
  schema: 'chat',
  directory: fileURLToPath(new URL('../migrations', import.meta.url)),
};
export { createOrganization, createChatUser, ROLE_NAMES } from './bootstrap.ts';
export { VIDEO_CHAT_PROVIDER } from './domain/video-calls.ts';
