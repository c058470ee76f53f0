import { execFileSync, spawn } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '@muse/core';

/** Debian's package (.ci/pgbouncer.sh installs it). */
const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `postgres://…` of `database` through the pooler. */
  urlOf(database: string): string;
  /** Server connections the pooler holds to Postgres now (SHOW POOLS: active, idle, used, tested, login). */
  serverConnections(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * PgBouncer in front of the Postgres of `adminUrl`, in transaction mode with `poolSize` server
 * connections per database. Clients may name any user (auth_type any: the pooler logs in as the
 * admin URL's user). The API processes' statement timeouts, sent as startup parameters, are
 * ignored, as charts/muse/README.md tells operators to configure it.
 */
export async function startPgBouncer(adminUrl: string, poolSize: number): Promise<PgBouncer> {
  const admin = new URL(adminUrl);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'muse-pgbouncer-'));
  const port = await freePort();
  await writeFile(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${admin.hostname} port=${admin.port} user=${decodeURIComponent(admin.username)} password=${decodeURIComponent(admin.password)}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 1000',
      'ignore_startup_parameters = statement_timeout,idle_in_transaction_session_timeout',
      `admin_users = ${decodeURIComponent(admin.username)}`,
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root, it runs as Postgres's system user.
  const owner =
    os.userInfo().uid === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : {};
  if (owner.uid !== undefined) await chown(dir, owner.uid, owner.gid!);
  const child = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore', ...owner });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const urlOf = (database: string) => `postgres://${admin.username}@127.0.0.1:${port}/${database}`;
  const adminConsole = async <T>(sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: urlOf('pgbouncer') });
    await client.connect();
    try {
      // The admin console speaks the simple protocol only.
      return (await client.query({ text: sql, queryMode: 'simple' } as pg.QueryConfig)).rows as T[];
    } finally {
      await client.end();
    }
  };
  // Ready once its console answers.
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}); see ${dir}`);
    if (
      await adminConsole('SHOW VERSION').then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  return {
    urlOf,
    async serverConnections() {
      const pools = await adminConsole<Record<string, string>>('SHOW POOLS');
      return pools
        .filter((pool) => pool.database !== 'pgbouncer')
        .reduce(
          (sum, pool) =>
            sum +
            ['sv_active', 'sv_idle', 'sv_used', 'sv_tested', 'sv_login'].reduce(
              (n, key) => n + Number(pool[key] ?? 0),
              0,
            ),
          0,
        );
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
