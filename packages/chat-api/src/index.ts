import { fileURLToPath } from 'node:url';
import type { ServiceMigrations } from '@muse/core';

export { createChatApp, type ChatDeps } from './app.ts';
export { openapiDocument } from './openapi.ts';
export { chatEndpoints } from './views/index.ts';

export const chatMigrations: ServiceMigrations = {
  schema: 'chat',
  directory: fileURLToPath(new URL('../migrations', import.meta.url)),
};
export {
  createOrganization,
  createChatUser,
  updateOrganization,
  welcomeChatUser,
  ROLE_NAMES,
} from './bootstrap.ts';
export { deliverScheduledMessage } from './domain/actions/scheduled-messages.ts';
export { createPushSender } from './push/index.ts';
export {
  scheduledMessageWorkflowId,
  type DeliveryOutcome,
  type DeliveryPlan,
} from './domain/delivery-contract.ts';
export { VIDEO_CHAT_PROVIDER } from './domain/actions/video-calls.ts';
