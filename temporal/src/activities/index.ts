import {
  createFileStorage,
  createOutboundFetch,
  createSecretBox,
  type FileStorage,
  type Config,
  type Logger,
  type OutboundFetch,
  type Sequelize,
} from '@muse/core';
import { createGenerationSteps } from '@muse/content-api/workflow-steps';
import {
  createPushSender,
  messageEffectsThrough,
  temporalWebhookStarter,
} from '@muse/chat-api/workflow-steps';
import type { Client } from '@temporalio/client';
import { createGenerationActivities } from './generation.ts';
import { createReplyActivities } from './reply.ts';
import { createScheduledMessageActivities } from './scheduled-messages.ts';
import { createOutgoingWebhookActivities } from './outgoing-webhooks.ts';
import { createPaymentActivities } from './payments.ts';

/** What activities reach the outside world through; tests pass their own. */
export interface ActivityDeps {
  db: Sequelize;
  logger: Logger;
  config: Config;
  /** Starts the workflows of outgoing webhooks that messages sent here (scheduled, bots' replies) trigger. */
  temporal: Client;
  /** Where generated contents go; default: the configured storage (local disk or S3). */
  storage?: FileStorage;
  /** How upstreams are called; default: the outbound client under MUSE_OUTBOUND_ALLOW. */
  fetch?: OutboundFetch;
}

export function createActivities(deps: ActivityDeps) {
  const outbound =
    deps.fetch ?? createOutboundFetch({ allow: deps.config.MUSE_OUTBOUND_ALLOW, logger: deps.logger });
  // What a message sent by an activity starts after its commit, as the API's messages do.
  messageEffectsThrough(deps.db, {
    webhooks: temporalWebhookStarter(deps.temporal, deps.config, deps.logger),
    push: createPushSender(deps.config, deps.logger),
    logger: deps.logger,
  });
  return {
    async databaseTime(): Promise<string> {
      const [rows] = await deps.db.query('SELECT now() AS now');
      return new Date((rows as { now: Date }[])[0]!.now).toISOString();
    },
    ...createGenerationActivities(
      createGenerationSteps({
        db: deps.db,
        logger: deps.logger,
        config: deps.config,
        storage: deps.storage ?? createFileStorage(deps.config),
        fetch: outbound,
      }),
    ),
    ...createReplyActivities({
      db: deps.db,
      logger: deps.logger,
      fetch: outbound,
      secrets: createSecretBox(deps.config.MUSE_SECRETS_KEY),
    }),
    ...createScheduledMessageActivities(deps),
    ...createOutgoingWebhookActivities({
      db: deps.db,
      config: deps.config,
      logger: deps.logger,
      fetch: outbound,
    }),
    ...createPaymentActivities({
      db: deps.db,
      logger: deps.logger,
      config: deps.config,
      fetch: outbound,
      secrets: createSecretBox(deps.config.MUSE_SECRETS_KEY),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
