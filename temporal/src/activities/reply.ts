import type { Logger, OutboundFetch, SecretBox, Sequelize } from '@muse/core';
import {
  chargeReply,
  planReply,
  refundReply,
  storeReply,
  streamReply,
} from '@muse/content-api/workflow-steps';
import { asActivity } from './failures.ts';

export interface ReplyActivityDeps {
  db: Sequelize;
  logger: Logger;
  /** The outbound client (address policy) the upstream is called through. */
  fetch: OutboundFetch;
  /** Opens the generator's sealed secrets (MUSE_SECRETS_KEY). */
  secrets: SecretBox;
}

/**
 * The steps of a character's reply. Thin on purpose: each hands off to the content service's
 * reply module (packages/content-api/src/conversations/replies.ts), which owns the ledger
 * entries, the stored message and the events, each keyed by the replied-to message.
 */
export function createReplyActivities(deps: ReplyActivityDeps) {
  return {
    planReply: (messageId: string) => planReply(deps.db, messageId),
    chargeReply: (messageId: string) => chargeReply(deps.db, messageId),
    streamReply: (messageId: string) =>
      asActivity(() =>
        streamReply(deps.db, messageId, { fetch: deps.fetch, logger: deps.logger }, deps.secrets),
      ),
    storeReply: (messageId: string, content: string) => storeReply(deps.db, messageId, content),
    refundReply: (messageId: string, reason: string) => refundReply(deps.db, messageId, reason),
  };
}

export type ReplyActivities = ReturnType<typeof createReplyActivities>;
