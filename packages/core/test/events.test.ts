import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, createLogger, createDatabase, type Sequelize } from '@muse/core';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';

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
