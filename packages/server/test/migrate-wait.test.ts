import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, pendingMigrations } from '@muse/core';
import { contentMigrations } from '@muse/content-api';
import { chatMigrations } from '@muse/chat-api';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
// A child process loads every workspace module first: slow on a busy machine.
const PROCESS_TEST_TIMEOUT_MS = 240_000;

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { exited, output: () => stdout + stderr };
}

describe('muse-server migrate --wait (the init container of every pod)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrated: false });
  });
  afterAll(() => database.drop());

  it(
    'fails after its timeout on an empty database, naming what is pending, and applies nothing',
    async () => {
      const waiting = run(['migrate', '--wait', '--timeout', '1'], { DATABASE_URL: database.url });
      expect(await waiting.exited).toBe(1);
      expect(waiting.output()).toMatch(/not up to date after 1 s; pending: content\/0001-/);
      expect(await pendingMigrations(database.db, [contentMigrations, chatMigrations])).toContain(
        'content/0600-operator-ownership',
      );
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'returns once the migrations Job has applied every migration',
    async () => {
      const waiting = run(['migrate', '--wait', '--timeout', '120'], { DATABASE_URL: database.url });
      await migrate(database.db, [contentMigrations, chatMigrations]);
      expect(await waiting.exited, waiting.output()).toBe(0);
      expect(waiting.output()).toContain('the database schema is up to date');
      expect(await pendingMigrations(database.db, [contentMigrations, chatMigrations])).toEqual([]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
