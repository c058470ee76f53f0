import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assertPortsFree,
  createLogger,
  findTemporalCli,
  freePort,
  portIsFree,
  startDevTemporal,
  startEmbeddedPostgres,
  type Config,
  type DevTemporal,
  type Logger,
} from '@muse/core';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { runMigrate } from './migrate.ts';
import { publishDevStack } from '../dev-stack-file.ts';
import { RESTART_BASE_MS, RESTART_MAX_MS, superviseService } from '../supervise.ts';

// main.ts beside its sources, main.js beside the compiled output.
const mainPath = fileURLToPath(new URL(`../main${path.extname(import.meta.url)}`, import.meta.url));

/**
 * The whole platform on one machine: embedded Postgres and a Temporal dev server when none
 * is configured (state kept under MUSE_DATA_DIR), migrations, then both APIs and a worker as
 * child processes, each restarted with back-off when it exits. Ctrl-C stops everything it started.
 */
export async function runDev(config: Config): Promise<void> {
  const logger = createLogger(config, 'dev');
  const dataDir = path.resolve(config.MUSE_DATA_DIR);
  const stops: (() => Promise<void>)[] = [];
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: unknown) => logger.warn({ err: error }, 'stop failed'));
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  try {
    // A development server answers POST /dev_fetch_api_key unless told otherwise (never in production).
    const devEndpoints = process.env.MUSE_CHAT_DEV_ENDPOINTS === undefined || config.MUSE_CHAT_DEV_ENDPOINTS;
    const env: Record<string, string> = await listening(config, devEndpoints);
    if (process.env.MUSE_CHAT_DEV_ENDPOINTS === undefined) env.MUSE_CHAT_DEV_ENDPOINTS = 'true';
    const started: string[] = [];
    if (!config.DATABASE_URL) {
      const postgres = await startEmbeddedPostgres({
        dataDir: path.join(dataDir, 'postgres'),
        port: await freePort(),
        logger,
      });
      stops.push(postgres.stop);
      env.DATABASE_URL = postgres.databaseUrl;
      logger.info('embedded Postgres started (data in %s)', path.join(dataDir, 'postgres'));
      started.push(`  Postgres      ${postgres.databaseUrl}  (embedded, a free port chosen at start)`);
    } else started.push('  Postgres      as DATABASE_URL says');
    if (!config.TEMPORAL_ADDRESS) {
      const temporal = await startTemporal(config, dataDir, logger);
      stops.push(temporal.stop);
      env.TEMPORAL_ADDRESS = temporal.address;
      logger.info('Temporal dev server started at %s', temporal.address);
      started.push(`  Temporal      ${temporal.address}  (dev server, a free port chosen at start)`);
      if (temporal.uiUrl)
        started.unshift(`  Temporal UI   ${temporal.uiUrl}  (workflows: generations, deliveries)`);
    } else started.push(`  Temporal      ${config.TEMPORAL_ADDRESS}  (TEMPORAL_ADDRESS)`);
    if (!config.MUSE_JWT_SECRET)
      env.MUSE_JWT_SECRET = await developmentSecret(path.join(dataDir, 'jwt-secret'));
    if (!config.MUSE_SECRETS_KEY)
      env.MUSE_SECRETS_KEY = await developmentSecret(path.join(dataDir, 'secrets-key'), 'base64');
    // Local fakes and self-hosted upstreams on this machine keep working in development.
    // Push works offline: the log sender, unless a real one is configured.
    if (config.MUSE_PUSH_SENDER === 'none' && process.env.MUSE_PUSH_SENDER === undefined)
      env.MUSE_PUSH_SENDER = 'log';
    if (process.env.MUSE_OUTBOUND_ALLOW === undefined)
      env.MUSE_OUTBOUND_ALLOW = '127.0.0.0/8, ::1, localhost';
    const childConfig = { ...config, ...env } as Config;
    const unpublish = publishDevStack(config, {
      DATABASE_URL: childConfig.DATABASE_URL,
      TEMPORAL_ADDRESS: childConfig.TEMPORAL_ADDRESS,
    });
    stops.push(async () => unpublish());
    await runMigrate(childConfig);

    for (const name of ['content-api', 'chat-api', 'worker']) {
      const service = superviseService(
        name,
        {
          execPath: process.execPath,
          args: [...process.execArgv, mainPath, name],
          env: { ...process.env, ...env },
        },
        logger,
        () => stopping,
      );
      stops.push(() => service.stop(config.MUSE_SHUTDOWN_TIMEOUT_MS + 1000));
    }
    const shownHost = ['0.0.0.0', '::'].includes(env.MUSE_HOST!) ? '127.0.0.1' : env.MUSE_HOST;
    const metrics = (name: (typeof METRICS_PORTS)[number]) => env[name] ?? config[name];
    console.log(
      [
        '',
        'Muse is starting:',
        `  content API   http://${shownHost}:${config.MUSE_CONTENT_PORT}  (OpenAPI: /openapi.json, readiness: /readyz)`,
        `  messaging API http://${shownHost}:${config.MUSE_CHAT_PORT}  (OpenAPI: /openapi.json)`,
        ...started,
        `  metrics       http://${shownHost}:${metrics('MUSE_CONTENT_METRICS_PORT')}/metrics  (content API; ` +
          `messaging API :${metrics('MUSE_CHAT_METRICS_PORT')}, worker :${metrics('MUSE_WORKER_METRICS_PORT')})`,
        `A service that exits is restarted (after ${RESTART_BASE_MS / 1000} s, doubling up to ${RESTART_MAX_MS / 1000} s).`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
}

const METRICS_PORTS = [
  'MUSE_CONTENT_METRICS_PORT',
  'MUSE_CHAT_METRICS_PORT',
  'MUSE_WORKER_METRICS_PORT',
] as const;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Where the services listen (the settings the children get). Loopback unless MUSE_HOST says
 * otherwise, since /dev_fetch_api_key hands any account's API key to whoever asks; an explicit
 * other host is said in a warning line while those endpoints are on. Metrics on free ports unless
 * set, so a second stack on other API ports starts beside the first; a port set and taken stops
 * the start at once, named, rather than a service restarted for ever.
 */
async function listening(config: Config, devEndpoints: boolean): Promise<Record<string, string>> {
  const host = process.env.MUSE_HOST ?? '127.0.0.1';
  if (devEndpoints && !LOOPBACK.test(host))
    console.warn(
      `Warning: MUSE_HOST=${host} with the development endpoints on: anyone who reaches this machine ` +
        "gets any account's API key from POST /dev_fetch_api_key (MUSE_CHAT_DEV_ENDPOINTS=false turns them off).",
    );
  const env: Record<string, string> = { MUSE_HOST: host };
  const taken: Record<string, number> = {
    MUSE_CONTENT_PORT: config.MUSE_CONTENT_PORT,
    MUSE_CHAT_PORT: config.MUSE_CHAT_PORT,
  };
  for (const name of METRICS_PORTS) {
    if (process.env[name] === undefined) env[name] = String(await freePort());
    else taken[name] = config[name];
  }
  await assertPortsFree(host, taken);
  return env;
}

/** The Temporal UI's port: as set; unset, the default unless another stack holds it, then a free one. */
async function temporalUiPort(config: Config): Promise<number | undefined> {
  const port = config.MUSE_TEMPORAL_UI_PORT;
  if (!port) return undefined;
  if (process.env.MUSE_TEMPORAL_UI_PORT === undefined)
    return (await portIsFree('127.0.0.1', port)) ? port : freePort();
  await assertPortsFree('127.0.0.1', { MUSE_TEMPORAL_UI_PORT: port });
  return port;
}

/** A token secret kept across restarts, so development logins survive them; delete the file to log everyone out. */
async function developmentSecret(file: string, encoding: 'hex' | 'base64' = 'hex'): Promise<string> {
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing && existing.trim().length >= 32) return existing.trim();
  const secret = randomBytes(32).toString(encoding);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * A local Temporal CLI first; without one, the Temporal SDK's own download of the dev server
 * (which needs internet); failing both, an error that says how to install the CLI.
 */
async function startTemporal(config: Config, dataDir: string, logger: Logger): Promise<DevTemporal> {
  const dbFile = path.join(dataDir, 'temporal.db');
  let cliPath: string;
  try {
    cliPath = findTemporalCli(config.TEMPORAL_CLI_PATH);
  } catch (noCli) {
    logger.warn('no Temporal CLI found; trying the Temporal SDK download of the dev server');
    try {
      const environment = await TestWorkflowEnvironment.createLocal({
        server: { ip: '127.0.0.1', dbFilename: dbFile },
      });
      return { address: environment.address, stop: () => environment.teardown() };
    } catch (downloadError) {
      throw new Error(
        `${(noCli as Error).message}\n(The SDK download failed too: ${(downloadError as Error).message})`,
      );
    }
  }
  const uiPort = await temporalUiPort(config);
  return startDevTemporal({ cliPath, port: await freePort(), uiPort, dbFile, logger });
}
