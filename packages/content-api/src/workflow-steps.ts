/**
 * The door the Temporal worker comes through (`@muse/content-api/workflow-steps`): the domain
 * steps its activities hand off to, and what they are built from, without the HTTP app.
 */
export { createGenerationSteps, type GenerationSteps, type GenerationStepDeps } from './generations/steps.ts';
export {
  planReply,
  chargeReply,
  streamReply,
  storeReply,
  refundReply,
  type ReplyPlan,
} from './conversations/replies.ts';
export { UpstreamError } from './generators/adapters/types.ts';
export { reconcilePayment } from './payments/reconcile.ts';
