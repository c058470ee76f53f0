// Every workflow the worker runs. This file is bundled for Temporal's deterministic sandbox:
// import only workflow code and types here, never Node or database modules.
export { pingWorkflow } from './ping.ts';
export { generationWorkflow } from './generation.ts';
export { characterReplyWorkflow } from './character-reply.ts';
export { scheduledMessageWorkflow } from './scheduled-message.ts';
export { paymentReconciliationWorkflow } from './payment.ts';
export { outgoingWebhookWorkflow } from './outgoing-webhook.ts';
