import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createLogger, freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '@muse/core';
import { startStrandedGenerations } from '@muse/content-api';
import { startTestStack, type TestStack } from './support/stack.ts';
import { balanceOf, createTestUser, type TestUser } from './support/content.ts';
import { BUILTIN, waitForFile } from './support/generation.ts';
import { developmentDouble, paymentKit } from './support/payments.ts';
import { makeOrganization, makeUser, waitUntil, type TestUser as ChatUser } from '@muse/test-support/chat';

/**
 * Postgres crashes (immediate shutdown) under a steady load of reads and generation submits on
 * both APIs, then comes back on the same data. While it is away every answer is 503 with
 * Retry-After (never 500) and /readyz says the database is down; afterwards both APIs serve again
 * without a restart, and every accepted generation ends with its credits exact.
 * The Postgres is this file's own, so the crash touches no other test.
 */
describe('a database outage', () => {
  const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }, 'outage-test');
  let dataDir: string;
  let port: number;
  let postgres: EmbeddedDatabase;
  let stack: TestStack;
  let user: TestUser;
  let chatUser: ChatUser;
  const INITIAL_BALANCE = 1_000_000;

  const startPostgres = () => startEmbeddedPostgres({ dataDir, port, logger, persistent: true });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'muse-outage-'));
    port = await freePort();
    postgres = await startPostgres();
    stack = await startTestStack({}, { adminDatabaseUrl: postgres.adminUrl });
    await stack.startWorker();
    user = await createTestUser(stack, { balance: INITIAL_BALANCE });
    await makeOrganization(stack);
    chatUser = await makeUser(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    await postgres?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while Postgres is away, recovers without a restart, and loses nothing', async () => {
    const chatAuth = `Basic ${Buffer.from(`${chatUser.email}:${chatUser.apiKey}`).toString('base64')}`;
    const requests = [
      {
        name: 'content read',
        run: () => fetch(`${stack.contentUrl}/api/v1/users/me`, { headers: user.headers }),
      },
      {
        name: 'content list',
        run: () => fetch(`${stack.contentUrl}/api/v1/characters?limit=5`, { headers: user.headers }),
      },
      {
        name: 'generation submit',
        run: () =>
          fetch(`${stack.contentUrl}/api/v1/generations/texts`, {
            method: 'POST',
            headers: { ...user.headers, 'content-type': 'application/json' },
            body: JSON.stringify({ generator_id: BUILTIN.text, prompt: 'steady load' }),
          }),
      },
      {
        name: 'chat read',
        run: () => fetch(`${stack.chatUrl}/api/v1/users/me`, { headers: { authorization: chatAuth } }),
      },
    ];
    const answers: { name: string; status: number; retryAfter: string | null; at: number; body: string }[] =
      [];
    const accepted: string[] = [];
    let loading = true;
    const loop = async (offset: number) => {
      for (let i = offset; loading; i += 1) {
        const request = requests[i % requests.length]!;
        const response = await request.run();
        const body = await response.text();
        answers.push({
          name: request.name,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          at: Date.now(),
          body,
        });
        if (request.name === 'generation submit' && response.status === 202)
          accepted.push(...(JSON.parse(body) as { file_ids: string[] }).file_ids);
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(loop));
    const served = (name: string, after = 0) =>
      answers.filter((a) => a.name === name && a.at > after && a.status < 300).length;
    await waitUntil(() => requests.every(({ name }) => served(name) >= 3), 'the load to be served', 60_000);

    // An order to pay while Postgres is away (the development provider's pay link is its notification).
    const payments = paymentKit(stack, await createTestUser(stack, { admin: true }));
    await payments.configure((await developmentDouble()).settings());
    const bundle = await payments.createBundle({ credits: 100, price_cents: 990 });
    const payer = await createTestUser(stack);
    const order = (await payments.order(payer, { bundle_id: bundle.id })).body as {
      id: string;
      code_url: string;
    };

    await postgres.stop('immediate');
    // A notification that cannot be checked now is refused as unavailable (the provider sends it
    // again), not as if its provider were not configured.
    const payWhileDown = await fetch(order.code_url);
    expect([payWhileDown.status, payWhileDown.headers.get('retry-after')]).toEqual([503, expect.any(String)]);
    const ready = async (url: string) => {
      const response = await fetch(`${url}/readyz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const whileDown = await Promise.all([ready(stack.contentUrl), ready(stack.chatUrl)]);
    for (const answer of whileDown) {
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ checks: { database: { ok: false } } });
    }
    await waitUntil(() => answers.filter((a) => a.status === 503).length >= 20, 'answers while away', 60_000);

    postgres = await startPostgres();
    const back = Date.now();
    await waitUntil(
      async () =>
        (await ready(stack.contentUrl)).status === 200 && (await ready(stack.chatUrl)).status === 200,
      'both APIs ready again',
      60_000,
    );
    await waitUntil(
      () => requests.every(({ name }) => served(name, back) >= 3),
      'every kind of request served again',
      60_000,
    );
    loading = false;
    await load;
    // The notification sent again once Postgres is back is taken, and credits once.
    expect((await fetch(order.code_url)).status).toBe(200);
    expect(await payments.ledgerOf(order.id)).toEqual([
      { kind: 'topup', amount: 100, reference: `payment:${order.id}` },
    ]);
    expect(await balanceOf(stack, payer.id)).toBe(100);

    const unexpected = answers.filter((a) => ![200, 202, 503].includes(a.status));
    expect(unexpected.map((a) => `${a.name}: ${a.status} ${a.body}`)).toEqual([]);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const answer of unavailable) expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    expect(new Set(unavailable.map((a) => a.name)).size).toBe(requests.length);

    // Nothing lost: every accepted task ends, and the balance is the ledger of the stored tasks.
    for (const id of accepted)
      expect(['completed', 'failed']).toContain((await waitForFile(stack, user, id, 120_000)).status);
    const rows = await stack.database.db.query<{ status: string; cost: string; file_ids: string[] }>(
      'SELECT status, cost, file_ids FROM content.generations WHERE owner_id = :id',
      { replacements: { id: user.id }, type: QueryTypes.SELECT },
    );
    expect(rows.flatMap((row) => row.file_ids)).toEqual(expect.arrayContaining(accepted));
    // A submit whose commit reached the disk as Postgres went down heard a dropped connection and
    // answered 503, yet its task is stored, charged and pending with no workflow: the outbox case.
    // The worker's reconciler starts such tasks once a minute; this is that round, run now.
    await startStrandedGenerations({ ...stack, db: stack.database.db }, 0);
    await waitUntil(
      async () =>
        (
          await stack.database.db.query<{ open: string }>(
            "SELECT count(*) AS open FROM content.generations WHERE owner_id = :id AND status NOT IN ('completed', 'failed')",
            { replacements: { id: user.id }, type: QueryTypes.SELECT },
          )
        )[0]!.open === '0',
      'every stored task to end',
      120_000,
    );
    const final = await stack.database.db.query<{ status: string; cost: string }>(
      'SELECT status, cost FROM content.generations WHERE owner_id = :id',
      { replacements: { id: user.id }, type: QueryTypes.SELECT },
    );
    const charged = final
      .filter((row) => row.status === 'completed')
      .reduce((sum, row) => sum + Number(row.cost), 0);
    expect(await balanceOf(stack, user.id)).toBe(INITIAL_BALANCE - charged);
  }, 600_000);
});
