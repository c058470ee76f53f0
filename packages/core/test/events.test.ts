import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Announcer, EventBus, createLogger, createDatabase, payloadsOf, type Sequelize } from '@muse/core';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';

const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

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
    await new Promise((r) => setTimeout(r, 50));
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
      await new Promise((r) => setTimeout(r, 100));
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

  it('stops delivering after unsubscribe', async () => {
    const bus = new EventBus(database.url, logger);
    const seen: unknown[] = [];
    const unsubscribe = await bus.subscribe('gone', (payload) => seen.push(payload));
    await unsubscribe();
    const marker = new Promise((resolve) => void bus.subscribe('marker', resolve));
    await new Promise((r) => setTimeout(r, 50));
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
