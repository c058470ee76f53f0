import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger, freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '@muse/core';
import { startTestStack, type TestStack } from './support/stack.ts';
import { createTestUser } from './support/content.ts';
import { startMuseServer, waitUntilServing, type MuseProcess } from './support/processes.ts';
import { call, makeOrganization, makeUser } from '@muse/test-support/chat';

const run = promisify(execFile);

/**
 * pg_dump must be of the server's major version or newer: this machine's client tools are
 * Debian's Postgres 15, older than the platform's embedded Postgres, so the install backed up here
 * runs on Debian's Postgres 15 server.
 */
const PG_BIN = '/usr/lib/postgresql/15/bin';

describe("backup and restore (charts/muse/README.md's runbook)", { timeout: 300_000 }, () => {
  let dir: string;
  let postgres: EmbeddedDatabase;
  let stack: TestStack;
  const processes: MuseProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'muse-restore-'));
    postgres = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'postgres'),
      port: await freePort(),
      logger: createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'warn' }, 'restore-test'),
      persistent: false,
      binaries: { initdb: `${PG_BIN}/initdb`, postgres: `${PG_BIN}/postgres` },
    });
    stack = await startTestStack({}, { adminDatabaseUrl: postgres.adminUrl });
  });
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await stack?.stop();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a pg_dump of a live install restores into a fresh database that serves the same users, balances and messages', async () => {
    const buyer = await createTestUser(stack, { balance: 42 });
    await makeOrganization(stack);
    const [alice, bob] = [await makeUser(stack), await makeUser(stack)];
    const sent = await call(stack.chatUrl, 'POST', '/messages', alice, {
      type: 'direct',
      to: [bob.id],
      content: 'written before the backup',
    });
    expect(sent.status).toBe(200);

    // The runbook's commands, against the install while it serves.
    const dump = path.join(dir, 'muse.dump');
    await run(`${PG_BIN}/pg_dump`, ['--format=custom', '--no-owner', `--file=${dump}`, stack.database.url]);
    const restoredUrl = new URL(stack.database.url);
    restoredUrl.pathname = '/muse_restored';
    const admin = new pg.Client({ connectionString: postgres.adminUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE muse_restored');
    await admin.end();
    await run(`${PG_BIN}/pg_restore`, ['--no-owner', `--dbname=${restoredUrl}`, dump]);

    // The release pointed at the restored database, with the same secrets.
    const [contentPort, chatPort] = [await freePort(), await freePort()];
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: restoredUrl.toString(),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      MUSE_HOST: '127.0.0.1',
      MUSE_CONTENT_PORT: String(contentPort),
      MUSE_CHAT_PORT: String(chatPort),
      MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
      MUSE_SECRETS_KEY: stack.config.MUSE_SECRETS_KEY!,
    };
    const contentUrl = `http://127.0.0.1:${contentPort}`;
    const chatUrl = `http://127.0.0.1:${chatPort}`;
    processes.push(startMuseServer(['content-api'], env), startMuseServer(['chat-api'], env));
    await waitUntilServing(contentUrl, processes[0]!);
    await waitUntilServing(chatUrl, processes[1]!);

    const me = await fetch(`${contentUrl}/api/v1/users/me`, { headers: buyer.headers });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: buyer.id, balance: 42 });
    const messages = await call(chatUrl, 'GET', '/messages', bob, { anchor: 'newest', num_before: 10 });
    expect(messages.status).toBe(200);
    expect(messages.body.messages).toEqual([
      expect.objectContaining({
        id: sent.body.id,
        content: expect.stringContaining('written before the backup'),
      }),
    ]);
  });
});
