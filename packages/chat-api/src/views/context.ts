import type { Config, FileStorage, Logger, Sequelize } from '@muse/core';
import type { Actor } from '../domain/context.ts';
import type { QueueNotifier } from '../domain/lib/events/notifier.ts';
import type { DeliveryScheduler } from '../domain/actions/scheduled-messages.ts';
import type { OutgoingWebhookStarter } from '../domain/outgoing-webhook-starter.ts';
import type { PushSender } from '../push/index.ts';
import type { VideoProviders } from '../video/index.ts';

/** What views share: the process-wide pieces, created once by createChatApp. */
export interface ChatRuntime {
  db: Sequelize;
  config: Config;
  logger: Logger;
  notifier: QueueNotifier;
  /** Delivers scheduled messages at their time (Temporal). */
  scheduler: DeliveryScheduler;
  /** Calls outgoing-webhook bots a message triggered (Temporal). */
  webhooks: OutgoingWebhookStarter;
  /** The configured mobile push sender; undefined when push is off. */
  push: PushSender | undefined;
  /** The video-call providers configured on this server. */
  video: VideoProviders;
  /** Where uploaded files are kept (local disk or S3, as the content service's files). */
  storage: FileStorage;
}

/** What an authenticated view receives: the caller, and the runtime. */
export interface ViewContext extends Actor {
  runtime: ChatRuntime;
}
