import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger, EventBus, payloadsOf } from '@muse/core';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';
import { randomPhone } from '@muse/test-support/content';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

function run(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [main, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('muse-server start-up', () => {
  it('stops on a wrong configuration value and names the variable', () => {
    const result = run(['content-api'], { MUSE_CONTENT_PORT: 'abc' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('MUSE_CONTENT_PORT="abc"');
  });

  it('says what to do when the database is not configured', () => {
    // A data folder no `muse-server dev` runs on, so nothing can stand in for the setting.
    const result = run(['migrate'], {
      DATABASE_URL: '',
      MUSE_DATA_DIR: path.join(os.tmpdir(), 'muse-cli-test-none'),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL is not set.*muse-server dev/);
  });
});

describe('shell commands beside a running `muse-server dev`', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('reach the database the dev stack started, through the file it leaves in the data folder', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'muse-cli-dev-'));
    // This test process stands in for the running supervisor: the file names a live pid.
    await writeFile(
      path.join(dataDir, 'dev-stack.json'),
      JSON.stringify({ pid: process.pid, DATABASE_URL: database.url }),
    );
    // Running API processes hear the grant (their sockets re-check the account): through Postgres.
    const bus = new EventBus(database.url, createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }, 'test'));
    const heard: unknown[] = [];
    await bus.subscribe('muse_account_access', (message) => heard.push(...payloadsOf(message)));
    try {
      const phone = randomPhone();
      const result = run(['admin', 'grant', '--phone', phone], { DATABASE_URL: '', MUSE_DATA_DIR: dataDir });
      expect(result.status, result.stderr).toBe(0);
      const [row] = await database.db.query<{ id: string; is_admin: boolean }>(
        'SELECT id, is_admin FROM content.users WHERE phone = :phone',
        { replacements: { phone }, type: QueryTypes.SELECT },
      );
      expect(row).toMatchObject({ is_admin: true });
      await vi.waitUntil(() => heard.length > 0, { timeout: 10_000, interval: 20 });
      expect(heard).toEqual([{ user_id: row!.id }]);
    } finally {
      await bus.close();
    }
  });

  it('ignore the file of a dev stack that is no longer running', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'muse-cli-dev-'));
    const finished = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
    await writeFile(
      path.join(dataDir, 'dev-stack.json'),
      JSON.stringify({ pid: finished.pid, DATABASE_URL: database.url }),
    );
    const result = run(['migrate'], { DATABASE_URL: '', MUSE_DATA_DIR: dataDir });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL is not set/);
  });
});
