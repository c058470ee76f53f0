import {
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
  /** The bus of events between processes (MUSE_EVENT_BUS); every writer on `db` announces through it. */
  bus: MessageBus;
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

/**
 * `servesRequests`: an API process, whose statements and pool waits are bounded (see
 * DatabaseOptions). The process's bus of events (MUSE_EVENT_BUS) is the one every writer on the
 * runtime's database announces through, after commit (see @muse/core's Announcer).
 */
export async function createRuntime(
  config: Config,
  name: string,
  options: { servesRequests?: boolean } = {},
): Promise<Runtime> {
  const logger = createLogger(config, name);
  const databaseUrl = requireSetting(config, 'DATABASE_URL');
  const temporalAddress = requireSetting(config, 'TEMPORAL_ADDRESS');
  // First: a bus the configuration refuses stops the start before anything is opened.
  // LISTEN holds a session: never through a pooler in transaction mode.
  const bus = await createMessageBus(config, config.DATABASE_DIRECT_URL ?? databaseUrl, logger);
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
  announceThrough(db, bus, logger);
  const temporal = createTemporalClient(temporalAddress, config.TEMPORAL_NAMESPACE, temporalSecurity(config));
  return {
    config,
    logger,
    db,
    temporal,
    bus,
    async close() {
      await announcerOf(db).flush();
      await bus.close();
      await temporal.connection.close().catch(() => {});
      await db.close();
    },
  };
}
