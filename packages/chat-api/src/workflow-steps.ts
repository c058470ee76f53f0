/**
 * The door the Temporal worker comes through (`@muse/chat-api/workflow-steps`): the domain steps
 * its activities hand off to, without the HTTP app.
 */
export { deliverScheduledMessage, type DeliveryWait } from './domain/actions/scheduled-messages.ts';
export { pushForMessage } from './domain/actions/push.ts';
export { createPushSender } from './push/index.ts';
export {
  BotUnreachableError,
  deliverOutgoingWebhook,
  reportUnreachableBot,
} from './domain/actions/outgoing-webhooks.ts';
