import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startProcessStack, type ProcessStack } from './support/process-stack.ts';
import { startPgBouncer, type PgBouncer } from './support/pgbouncer.ts';
import { createTestUser } from './support/content.ts';
import { BUILTIN, submit, waitForFile } from './support/generation.ts';
import { call, makeOrganization, makeUser, secondsFromNow, waitForEvents } from '@muse/test-support/chat';

const SERVER_CONNECTIONS = 5;

/**
 * The messaging API and the worker with DATABASE_URL through Debian's PgBouncer in transaction
 * mode (a server connection per transaction), DATABASE_DIRECT_URL for what holds a session (the
 * bus's LISTEN). The content API too, with MUSE_DB_TRANSACTION_POOLER: its hot reads
 * (selectRows) are then unnamed statements, which PgBouncer before 1.21 routes like any other.
 */
describe('both APIs and the worker through PgBouncer in transaction mode', { timeout: 600_000 }, () => {
  let pooler: PgBouncer;
  let stack: ProcessStack;
  beforeAll(async () => {
    pooler = await startPgBouncer(inject('adminDatabaseUrl'), SERVER_CONNECTIONS);
    stack = await startProcessStack({}, (database) => {
      const pooled = {
        DATABASE_URL: pooler.urlOf(new URL(database.url).pathname.slice(1)),
        DATABASE_DIRECT_URL: database.url,
      };
      return {
        'chat-api': pooled,
        worker: pooled,
        'content-api': { ...pooled, MUSE_DB_TRANSACTION_POOLER: 'true' },
      };
    });
  }, 600_000);
  afterAll(async () => {
    await stack?.stop();
    await pooler?.stop();
  });

  it('send messages, deliver events and scheduled messages, and run generations on its few server connections', async () => {
    const test = stack.asTestStack();
    const url = () => stack.chatUrl;
    await makeOrganization(test);
    const users = await Promise.all([makeUser(test), makeUser(test), makeUser(test)]);
    const [alice, bob] = users;
    const queue = (await call(url(), 'POST', '/register', bob, { event_types: ['message'] })).body;

    // Many clients at once, more than the pooler's server connections.
    const sends = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(url(), 'POST', '/messages', users[i % 3]!, {
          type: 'direct',
          to: [users[(i + 1) % 3]!.id],
          content: `pooled ${i}`,
        }),
      ),
    );
    expect(sends.map((reply) => reply.status)).toEqual(sends.map(() => 200));
    // Bob's queue gets the messages to him and those he sent (as Zulip's does).
    const bobs = sends.filter((_, i) => i % 3 !== 2).map((reply) => reply.body.id as number);
    const events = await waitForEvents(
      url(),
      bob,
      queue.queue_id as string,
      (seen) => seen.length >= bobs.length,
    );
    expect(events.map((event) => (event.message as { id: number }).id).sort()).toEqual(bobs.sort());

    // The worker delivers a scheduled message through the pooler.
    const scheduled = await call(url(), 'POST', '/scheduled_messages', alice, {
      type: 'direct',
      to: [bob.id],
      content: 'scheduled through the pooler',
      scheduled_delivery_timestamp: secondsFromNow(2),
    });
    expect(scheduled.status).toBe(200);
    // Delivered by the worker, another process, to Bob's queue. (The messaging API also catches
    // up without the bus, so this does not show where LISTEN goes: database-settings.test.ts does.)
    const delivered = await waitForEvents(url(), bob, queue.queue_id as string, (seen) =>
      seen.some((event) =>
        String((event.message as { content: string }).content).includes('scheduled through'),
      ),
    );
    expect(delivered.length).toBeGreaterThan(bobs.length);
    for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
      const [row] = await test.database.db.query<{ delivered_at: Date | null }>(
        'SELECT delivered_at FROM chat.scheduled_messages WHERE id = :id',
        { replacements: { id: scheduled.body.scheduled_message_id }, type: QueryTypes.SELECT },
      );
      if (row?.delivered_at) break;
      if (Date.now() > deadline) throw new Error('the scheduled message was not delivered');
    }

    // Generations run by the worker, whose steps all go through the pooler.
    const buyer = await createTestUser(test, { balance: 100 });
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        submit(test, buyer, 'images', { generator_id: BUILTIN.image, prompt: 'a fox' }),
      ),
    );
    const files = await Promise.all(
      answers.map((answer) => waitForFile(test, buyer, answer.body.file_ids[0]!, 120_000)),
    );
    expect(files.map((file) => file.status)).toEqual(['completed', 'completed', 'completed', 'completed']);

    // The content API's hot reads (the account of every request) through the pooler, many at once:
    // with named prepared statements, about half failed ('prepared statement "muse_1" does not exist').
    const reads = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${stack.contentUrl}/api/v1/users/me`, { headers: { authorization: `Bearer ${buyer.token}` } }),
      ),
    );
    expect(reads.map((read) => read.status)).toEqual(reads.map(() => 200));

    const held = await pooler.serverConnections();
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(SERVER_CONNECTIONS);
  });
});
