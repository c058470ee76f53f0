import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createLogger,
  findTemporalCli,
  freePort,
  startDevTemporal,
  startEmbeddedPostgres,
  stopChild,
  type Config,
  type Logger,
} from '@muse/core';
import { runMigrate } from './migrate.ts';

const mainPath = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * The whole platform on one machine: embedded Postgres and a Temporal dev server when none
 * is configured (state kept under MUSE_DATA_DIR), migrations, then both APIs and a worker as
 * child processes. Ctrl-C stops everything it started.
 */
export async function runDev(config: Config): Promise<void> {
  const logger = createLogger(config, 'dev');
  const dataDir = path.resolve(config.MUSE_DATA_DIR);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse())
      await stop().catch((error: unknown) => logger.warn({ err: error }, 'stop failed'));
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  try {
    const env: Record<string, string> = {};
    if (!config.DATABASE_URL) {
      const postgres = await startEmbeddedPostgres({
        dataDir: path.join(dataDir, 'postgres'),
        port: await freePort(),
        logger,
      });
      stops.push(postgres.stop);
      env.DATABASE_URL = postgres.databaseUrl;
      logger.info('embedded Postgres started (data in %s)', path.join(dataDir, 'postgres'));
    }
    if (!config.TEMPORAL_ADDRESS) {
      const temporal = await startTemporal(config, dataDir, logger);
      stops.push(temporal.stop);
      env.TEMPORAL_ADDRESS = temporal.address;
      logger.info('Temporal dev server started at %s', temporal.address);
    }
    const childConfig = { ...config, ...env } as Config;
    await runMigrate(childConfig);

    for (const name of ['content-api', 'chat-api', 'worker']) {
      const child = spawnService(name, env, logger, stopAll);
      stops.push(() => stopChild(child, config.MUSE_SHUTDOWN_TIMEOUT_MS + 1000));
    }
    const shownHost = config.MUSE_HOST === '0.0.0.0' ? '127.0.0.1' : config.MUSE_HOST;
    console.log(
      [
        '',
        'Muse is starting:',
        `  content API   http://${shownHost}:${config.MUSE_CONTENT_PORT}  (OpenAPI: /openapi.json, readiness: /readyz)`,
        `  messaging API http://${shownHost}:${config.MUSE_CHAT_PORT}`,
        `  database      ${env.DATABASE_URL ?? config.DATABASE_URL}`,
        `  Temporal      ${env.TEMPORAL_ADDRESS ?? config.TEMPORAL_ADDRESS}`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function startTemporal(config: Config, dataDir: string, logger: Logger) {
  const cliPath = findTemporalCli(config.TEMPORAL_CLI_PATH);
  return startDevTemporal({
    cliPath,
    port: await freePort(),
    dbFile: path.join(dataDir, 'temporal.db'),
    logger,
  });
}

function spawnService(
  name: string,
  env: Record<string, string>,
  logger: Logger,
  stopAll: () => Promise<void>,
): ChildProcess {
  const child = spawn(process.execPath, [mainPath, name], {
    env: { ...process.env, ...env },
    stdio: 'inherit',
  });
  child.once('exit', (code, signal) => {
    if (code === 0 || signal === 'SIGTERM') return;
    logger.error({ code, signal }, `${name} exited; stopping the platform`);
    void stopAll().then(() => process.exit(1));
  });
  return child;
}
