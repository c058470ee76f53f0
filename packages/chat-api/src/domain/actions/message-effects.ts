import type { Logger, Sequelize } from '@muse/core';
import type { Actor } from '../context.ts';
import type { OutgoingWebhookStarter } from '../outgoing-webhook-starter.ts';
import type { PushSender } from '../../push/index.ts';
import { pushForMessage } from './push.ts';
import { type Transaction } from '@muse/core';

/**
 * What a message sets going outside the database once it is committed, whoever sent it (a
 * request, a scheduled delivery, a bot's reply, the Welcome Bot): Zulip's actions do the same
 * with `queue_event_on_commit`. The recipients' events wake their queues after commit on their
 * own (lib/events/notifier.ts).
 */
export interface MessageEffects {
  /** Calls the outgoing-webhook bots the message triggered. */
  webhooks: OutgoingWebhookStarter;
  /** Pushes to recipients with no live queue; undefined when push is off. */
  push: PushSender | undefined;
  logger: Logger;
}

/** Per database handle, the process's effects (the API and the worker each set equivalent ones). */
const effectsByDb = new WeakMap<Sequelize, MessageEffects>();

/** Makes `effects` the ones every message sent through `db` in this process starts. */
export function messageEffectsThrough(db: Sequelize, effects: MessageEffects): void {
  effectsByDb.set(db, effects);
}

/**
 * Starts the message's effects when `t` commits: after the transaction's connection went back to
 * the pool, and never for an attempt that rolled back. A process without effects (a one-off
 * command) starts none; the API's sweep starts the webhook triggers such a message left.
 */
export function startEffectsAfterCommit(
  actor: Actor,
  t: Transaction,
  message: { id: number; triggerIds: number[] },
): void {
  const effects = effectsByDb.get(actor.db);
  if (!effects || (!effects.push && message.triggerIds.length === 0)) return;
  const { push, webhooks, logger } = effects;
  t.afterCommit(async () => {
    // Off the sender's path: a slow push service never delays the answer or the delivery.
    if (push)
      void pushForMessage(actor, push, message.id, logger).catch((error: unknown) =>
        logger.warn({ err: error, messageId: message.id }, 'push notifications failed'),
      );
    // A hook that throws would fail a commit that happened; the starter logs its own failures.
    if (message.triggerIds.length > 0)
      await webhooks
        .start(message.triggerIds)
        .catch((error: unknown) =>
          logger.error({ err: error, messageId: message.id }, 'could not start outgoing webhooks'),
        );
  });
}
