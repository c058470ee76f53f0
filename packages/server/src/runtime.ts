import {
  EventBus,
  announceThrough,
  announcerOf,
  createDatabase,
  createMessageBus,
  createLogger,
  type Config,
  type Logger,
  type MessageBus,
  type Sequelize,
} from '@muse/core';
// The client alone: the package's index also loads the worker (bundler included), which API processes never run.
import { createTemporalClient, temporalSecurity } from '@muse/temporal/client';
import type { Client } from '@temporalio/client';
import { runningDevStack } from './dev-stack-file.ts';

/** The shared dependencies of every long-running sub-command. */
export interface Runtime {
  config: Config;
  logger: Logger;
  db: Sequelize;
  temporal: Client;
  events: EventBus;
  /** The bus of events between processes when it is not `events` (MUSE_EVENT_BUS=redis); set by `connectBus`. */
  bus?: MessageBus;
  close(): Promise<void>;
}

/** A configured value, else the one of a `muse-server dev` running on the same data folder. */
export function requireSetting(config: Config, name: 'DATABASE_URL' | 'TEMPORAL_ADDRESS'): string {
  const value = config[name] ?? runningDevStack(config)?.[name];
  if (!value) {
    throw new Error(
      `${name} is not set. Set it, or run \`muse-server dev\` (npm start), which starts embedded services.`,
    );
  }
  return value;
}

/** `servesRequests`: an API process, whose statements and pool waits are bounded (see DatabaseOptions). */
export function createRuntime(
  config: Config,
  name: string,
  options: { servesRequests?: boolean } = {},
): Runtime {
  const logger = createLogger(config, name);
  const databaseUrl = requireSetting(config, 'DATABASE_URL');
  const db = createDatabase(databaseUrl, logger, {
    poolMax: config.MUSE_DB_POOL_MAX,
    transactionPooler: config.MUSE_DB_TRANSACTION_POOLER,
    ...(options.servesRequests
      ? {
          statementTimeoutMs: config.MUSE_DB_STATEMENT_TIMEOUT_MS,
          acquireTimeoutMs: config.MUSE_DB_ACQUIRE_TIMEOUT_MS,
        }
      : {}),
  });
  const temporal = createTemporalClient(
    requireSetting(config, 'TEMPORAL_ADDRESS'),
    config.TEMPORAL_NAMESPACE,
    temporalSecurity(config),
  );
  // LISTEN holds a session: never through a pooler in transaction mode.
  const events = new EventBus(config.DATABASE_DIRECT_URL ?? databaseUrl, logger);
  return {
    config,
    logger,
    db,
    temporal,
    events,
    async close() {
      await announcerOf(db).flush();
      await this.bus?.close();
      await events.close();
      await temporal.connection.close().catch(() => {});
      await db.close();
    },
  };
}

/**
 * Connects the process's bus of events (MUSE_EVENT_BUS) and makes it the one every writer on the
 * runtime's database announces through, after commit (see @muse/core's Announcer).
 */
export async function connectBus(runtime: Runtime): Promise<MessageBus> {
  const bus = await createMessageBus(runtime.config, runtime.events, runtime.logger);
  if (bus !== runtime.events) runtime.bus = bus;
  announceThrough(runtime.db, bus, runtime.logger);
  return bus;
}
