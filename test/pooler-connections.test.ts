import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startProcessStack, type ProcessStack } from './support/process-stack.ts';
import { startPgBouncer, type PgBouncer } from './support/pgbouncer.ts';
import { createTestUser } from './support/content.ts';
import { BUILTIN, submit, waitForFile } from './support/generation.ts';
import { call, makeOrganization, makeUser, waitForEvents } from '@muse/test-support/chat';

const POOLER_SERVER_CONNECTIONS = 5;

/**
 * The figure charts/muse/README.md's pooler advice rests on: the server connections Postgres sees
 * for one load on three API processes (one content API, two messaging API replicas) and one
 * worker, first with every process connected directly (each with its own pool), then with
 * DATABASE_URL through Debian's PgBouncer in transaction mode (and DATABASE_DIRECT_URL for what
 * holds a session). Counted from pg_stat_activity, sampled throughout; printed.
 */
describe('server connections Postgres sees, directly and through PgBouncer', { timeout: 900_000 }, () => {
  const peaks: Record<string, Peak> = {};
  afterAll(() => {
    const { direct, pooled } = peaks;
    console.log(
      `server connections Postgres saw at most, 3 API processes + 1 worker, same load: ` +
        `direct ${direct?.connections}; through PgBouncer (pool of ${POOLER_SERVER_CONNECTIONS}) ` +
        `${pooled?.connections} (${pooled?.fromPooler} of them PgBouncer's, the rest the processes' own sessions on DATABASE_DIRECT_URL)`,
    );
  });

  it('directly: each process opens its own pool', async () => {
    const stack = await startProcessStack({}, () => ({}), { moreChatApis: 1 });
    try {
      peaks.direct = await peakDuring(stack, () => load(stack));
    } finally {
      await stack.stop();
    }
    expect(peaks.direct.connections).toBeGreaterThan(POOLER_SERVER_CONNECTIONS);
  });

  it('through PgBouncer in transaction mode: its pool and the sessions that need a direct connection', async () => {
    let pooler: PgBouncer | undefined;
    let stack: ProcessStack | undefined;
    try {
      pooler = await startPgBouncer(inject('adminDatabaseUrl'), POOLER_SERVER_CONNECTIONS);
      const through = pooler;
      stack = await startProcessStack(
        {},
        (database) => {
          const pooled = {
            DATABASE_URL: through.urlOf(new URL(database.url).pathname.slice(1)),
            DATABASE_DIRECT_URL: database.url,
          };
          return {
            'chat-api': pooled,
            worker: pooled,
            'content-api': { ...pooled, MUSE_DB_TRANSACTION_POOLER: 'true' },
          };
        },
        { moreChatApis: 1 },
      );
      const running = stack;
      peaks.pooled = await peakDuring(running, () => load(running), through);
    } finally {
      await stack?.stop();
      await pooler?.stop();
    }
    expect(peaks.pooled.fromPooler).toBeLessThanOrEqual(POOLER_SERVER_CONNECTIONS);
    expect(peaks.pooled.connections).toBeLessThan(peaks.direct!.connections);
  });
});

/**
 * The same for both runs: 60 direct messages sent at once across the messaging API replicas while
 * a member's queue is polled, 200 concurrent `/users/me` on the content API, four generations.
 */
async function load(stack: ProcessStack): Promise<void> {
  const test = stack.asTestStack();
  await makeOrganization(test);
  const users = await Promise.all([makeUser(test), makeUser(test), makeUser(test)]);
  const bob = users[1]!;
  const queue = (await call(stack.chatUrl, 'POST', '/register', bob, { event_types: ['message'] })).body;
  const sends = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      call(stack.chatUrls[i % stack.chatUrls.length]!, 'POST', '/messages', users[i % 3]!, {
        type: 'direct',
        to: [users[(i + 1) % 3]!.id],
        content: `load ${i}`,
      }),
    ),
  );
  expect(sends.map((reply) => reply.status)).toEqual(sends.map(() => 200));
  const toBob = sends.filter((_, i) => i % 3 !== 2).length;
  await waitForEvents(stack.chatUrls[1]!, bob, queue.queue_id as string, (seen) => seen.length >= toBob);

  const buyer = await createTestUser(test, { balance: 100 });
  const [generations, reads] = await Promise.all([
    Promise.all(
      Array.from({ length: 4 }, () =>
        submit(test, buyer, 'images', { generator_id: BUILTIN.image, prompt: 'a fox' }),
      ),
    ),
    Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${stack.contentUrl}/api/v1/users/me`, { headers: { authorization: `Bearer ${buyer.token}` } }),
      ),
    ),
  ]);
  expect(reads.map((read) => read.status)).toEqual(reads.map(() => 200));
  const files = await Promise.all(
    generations.map((answer) => waitForFile(test, buyer, answer.body.file_ids[0]!, 120_000)),
  );
  expect(files.map((file) => file.status)).toEqual(files.map(() => 'completed'));
}

interface Peak {
  /** Client backends connected to the stack's database. */
  connections: number;
  /** Of those, the pooler's server connections (read from its console at the same moment). */
  fromPooler?: number;
}

/**
 * The most client backends connected to the stack's database at once while `work` runs (and at its
 * end), sampled every 20 ms on a connection of the test's own, not counted.
 */
async function peakDuring(stack: ProcessStack, work: () => Promise<void>, pooler?: PgBouncer): Promise<Peak> {
  const sampler = new pg.Client({ connectionString: stack.database.url });
  await sampler.connect();
  let peak: Peak = { connections: 0 };
  let running = true;
  const sample = async () => {
    const [{ rows }, fromPooler] = await Promise.all([
      sampler.query<{ connections: number }>(
        `SELECT count(*)::int AS connections FROM pg_stat_activity
          WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      ),
      pooler?.serverConnections(),
    ]);
    if (rows[0]!.connections > peak.connections)
      peak = { connections: rows[0]!.connections, ...(pooler ? { fromPooler } : {}) };
  };
  const sampling = (async () => {
    while (running) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await sampling;
    await sample();
    await sampler.end();
  }
  return peak;
}
