/**
 * The door the Temporal worker comes through (`@muse/chat-api/workflow-steps`): the domain steps
 * its activities hand off to, without the HTTP app.
 */
export { deliverScheduledMessage, type DeliveryWait } from './domain/actions/scheduled-messages.ts';
export { messageEffectsThrough } from './domain/actions/message-effects.ts';
export { temporalWebhookStarter } from './domain/outgoing-webhook-starter.ts';
export { createPushSender } from './push/index.ts';
export {
  BotUnreachableError,
  deliverOutgoingWebhook,
  reportUnreachableBot,
} from './domain/actions/outgoing-webhooks.ts';
