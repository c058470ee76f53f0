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
