import net from 'node:net';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Announcer, EventBus, createLogger, createDatabase, payloadsOf, type Sequelize } from '@muse/core';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';

const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

/**
 * Resolves once `bus` listens on `channel` (a second subscription returns after the first's LISTEN,
 * the bus's statements running one after another), instead of a guessed pause.
 */
async function listening(bus: EventBus, channel: string): Promise<void> {
  const stop = await bus.subscribe(channel, () => {});
  await stop();
}

describe('EventBus (Postgres LISTEN/NOTIFY)', () => {
  let database: TestDatabase;
  let publisher: Sequelize;
  beforeAll(async () => {
    database = await createTestDatabase();
    publisher = createDatabase(database.url);
  });
  afterAll(async () => {
    await publisher.close();
    await database.drop();
  });

  it('delivers an event published on another connection', async () => {
    const bus = new EventBus(database.url, logger);
    const received = new Promise((resolve) => void bus.subscribe('file_status', resolve));
    await listening(bus, 'file_status');
    await EventBus.publish(publisher, 'file_status', { id: 'f1', status: 'completed' });
    await expect(received).resolves.toEqual({ id: 'f1', status: 'completed' });
    await bus.close();
  });

  it('delivers an event published in a transaction only when it commits', async () => {
    const bus = new EventBus(database.url, logger);
    const seen: unknown[] = [];
    await bus.subscribe('tx_events', (payload) => seen.push(payload));
    await publisher
      .transaction(async (transaction) => {
        await EventBus.publish(publisher, 'tx_events', { n: 1 }, transaction);
        throw new Error('roll back');
      })
      .catch(() => {});
    await publisher.transaction(async (transaction) => {
      await EventBus.publish(publisher, 'tx_events', { n: 2 }, transaction);
    });
    await expect.poll(() => seen).toEqual([{ n: 2 }]);
    await bus.close();
  });

  it('recovers when its first connection fails: a later subscribe listens and receives', async () => {
    // A TCP proxy in front of the real Postgres that drops the first connection it gets.
    const target = new URL(database.url);
    let connections = 0;
    const proxy = net.createServer((socket) => {
      if (connections++ === 0) return socket.destroy();
      const upstream = net.connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const viaProxy = new URL(database.url);
    viaProxy.port = String((proxy.address() as net.AddressInfo).port);
    const bus = new EventBus(viaProxy.toString(), logger);
    try {
      await expect(bus.subscribe('flaky', () => {})).rejects.toThrow();
      const received = new Promise((resolve) => void bus.subscribe('flaky', resolve));
      await listening(bus, 'flaky');
      await EventBus.publish(publisher, 'flaky', { after: 'recovery' });
      await expect(received).resolves.toEqual({ after: 'recovery' });
    } finally {
      await bus.close();
      proxy.close();
    }
  });

  it('sends one query at a time on its connection while publishes and subscribes overlap', async () => {
    // pg 9 refuses a query sent while another runs on the same client (pg 8 warns).
    let inFlight = 0;
    let overlapped = 0;
    const query = pg.Client.prototype.query;
    const counted = function (this: pg.Client, ...args: unknown[]) {
      if (inFlight++ > 0) overlapped++;
      const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      return result.finally(() => inFlight--);
    };
    pg.Client.prototype.query = counted as typeof query;
    const bus = new EventBus(database.url, logger);
    try {
      const seen: unknown[] = [];
      await Promise.all([
        ...['one', 'two', 'three'].map((channel) => bus.subscribe(channel, (payload) => seen.push(payload))),
        ...Array.from({ length: 10 }, (_, n) => bus.publish('elsewhere', { n })),
      ]);
      await Promise.all(Array.from({ length: 10 }, (_, n) => bus.publish('two', { n })));
      await expect.poll(() => seen.length).toBe(10);
      expect(overlapped).toBe(0);
    } finally {
      pg.Client.prototype.query = query;
      await bus.close();
    }
  });

  it('listens again on a new connection when the server ends its own, and tells subscribers to catch up', async () => {
    const bus = new EventBus(database.url, logger);
    try {
      const seen: unknown[] = [];
      let resumed = 0;
      await bus.subscribe(
        'resumable',
        (payload) => seen.push(payload),
        () => (resumed += 1),
      );
      // What a primary shutting down or an administrator does to the listening session: 57P01.
      const [ended] = await publisher.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
        { type: QueryTypes.SELECT },
      );
      expect(ended?.ended).toBe(true);
      await expect.poll(() => resumed, { timeout: 15_000 }).toBe(1);
      await EventBus.publish(publisher, 'resumable', { after: 'resume' });
      await expect.poll(() => seen).toEqual([{ after: 'resume' }]);
    } finally {
      await bus.close();
    }
  });

  it('refuses to listen on a server that cannot write (a standby, a demoted primary): 25006', async () => {
    const name = new URL(database.url).pathname.slice(1);
    // A session opened before: it stays writable, so it can undo the setting (new sessions get it).
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
    const bus = new EventBus(database.url, logger);
    try {
      await expect(bus.subscribe('read_only', () => {})).rejects.toMatchObject({ code: '25006' });
    } finally {
      await admin.query(`ALTER DATABASE "${name}" RESET default_transaction_read_only`);
      await admin.end();
    }
    // The same bus listens once the server takes writes again.
    const received = new Promise((resolve) => void bus.subscribe('read_only', resolve));
    await expect
      .poll(async () => {
        await EventBus.publish(publisher, 'read_only', { writable: true });
        return Promise.race([received, new Promise((resolve) => setImmediate(resolve, 'not yet'))]);
      })
      .toEqual({ writable: true });
    await bus.close();
  });

  it('stops delivering after unsubscribe', async () => {
    const bus = new EventBus(database.url, logger);
    const seen: unknown[] = [];
    const unsubscribe = await bus.subscribe('gone', (payload) => seen.push(payload));
    await unsubscribe();
    const marker = new Promise((resolve) => void bus.subscribe('marker', resolve));
    await listening(bus, 'marker');
    await EventBus.publish(publisher, 'gone', 1);
    await EventBus.publish(publisher, 'marker', 2);
    await marker;
    expect(seen).toEqual([]);
    await bus.close();
  });
});

describe('Announcer (after commit, batched per process)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it("sends one turn's announcements of a channel as one array, in order, each message under the NOTIFY cap", async () => {
    const listener = new EventBus(database.url, logger);
    const publisher = new EventBus(database.url, logger);
    const messages: unknown[][] = [];
    await listener.subscribe('batched', (message) => messages.push(message as unknown[]));
    const announcer = new Announcer(publisher, logger);
    for (let n = 0; n < 3; n++) announcer.announce('batched', { n });
    await announcer.flush();
    await expect.poll(() => messages).toEqual([[{ n: 0 }, { n: 1 }, { n: 2 }]]);

    // 30 payloads of ~1 KB in one turn: several messages (Postgres refuses one over 8000 bytes), nothing lost or reordered.
    messages.length = 0;
    for (let n = 0; n < 30; n++) announcer.announce('batched', { n, text: 'x'.repeat(1000) });
    await announcer.flush();
    await expect.poll(() => messages.flat().length).toBe(30);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.flat().map((payload) => (payload as { n: number }).n)).toEqual([...Array(30).keys()]);
    expect(payloadsOf({ single: true })).toEqual([{ single: true }]);
    await listener.close();
    await publisher.close();
  });
});
