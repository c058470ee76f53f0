import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NestedAcquireError,
  beforeCommit,
  createDatabase,
  exec,
  isUniqueViolation,
  one,
  rows,
  selectRows,
  transact,
  type Sequelize,
} from '@muse/core';
import { createTestDatabase, poolSize, type TestDatabase } from '@muse/test-support/database';

/** The one SQL dialect: statements join the ambient transaction; a pool of one never deadlocks. */
describe('core sql: ambient transactions on a pool of one', () => {
  let database: TestDatabase;
  let db: Sequelize;
  const txid = async () => (await one<{ id: string }>(db, 'SELECT txid_current()::text AS id'))!.id;
  beforeAll(async () => {
    database = await createTestDatabase({ migrated: false });
    db = database.db;
    await exec(db, 'CREATE TABLE things (name text PRIMARY KEY)');
  });
  afterAll(() => database.drop());

  it('runs the tests with one pooled connection and the strict guard', () => {
    expect(poolSize(db)).toBe(1);
    expect(process.env.MUSE_STRICT_TRANSACTIONS).toBe('1');
  });

  it('a statement issued anywhere inside transact runs in its transaction, without passing it', async () => {
    const inside = async () => [
      await txid(),
      (await selectRows<{ id: string }>(db, 'SELECT txid_current()::text AS id', []))[0]!.id,
    ];
    const [outer, [deep, prepared]] = await transact(db, async () => [await txid(), await inside()] as const);
    expect(deep).toBe(outer);
    expect(prepared).toBe(outer);
    // Outside, each statement gets a transaction of its own.
    expect(await txid()).not.toBe(outer);
  });

  it('serves many concurrent transactions on one connection, each seeing only its own work', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `t${i}`);
    await Promise.all(
      names.map((name) =>
        transact(db, async () => {
          await exec(db, 'INSERT INTO things (name) VALUES (:name)', { name });
          const mine = await rows<{ name: string }>(db, 'SELECT name FROM things WHERE name = :name', {
            name,
          });
          expect(mine).toEqual([{ name }]);
        }),
      ),
    );
    expect((await rows(db, `SELECT name FROM things WHERE name LIKE 't%'`)).length).toBe(20);
  });

  it('a nested transact joins the outer one: one commit, one rollback, hooks before the commit', async () => {
    const order: string[] = [];
    await expect(
      transact(db, async (outer) => {
        await exec(db, `INSERT INTO things (name) VALUES ('nested-a')`);
        await transact(db, async (inner) => {
          expect(inner).toBe(outer);
          beforeCommit(inner, async () => void order.push('hook'));
          await exec(db, `INSERT INTO things (name) VALUES ('nested-b')`);
        });
        order.push('outer work done');
        throw new Error('roll back both');
      }),
    ).rejects.toThrow('roll back both');
    expect(order).toEqual(['outer work done']);
    expect(await rows(db, `SELECT name FROM things WHERE name LIKE 'nested-%'`)).toEqual([]);
  });

  it('refuses a second pooled connection inside an open transaction (the pool-of-one deadlock)', async () => {
    await expect(transact(db, () => db.transaction(async () => 'a second connection'))).rejects.toThrow(
      NestedAcquireError,
    );
    // And the connection is free again afterwards.
    expect(await one(db, 'SELECT 1 AS ok')).toEqual({ ok: 1 });
  });

  it('after commit, statements go back to the pool', async () => {
    const outer = await transact(db, async (t) => {
      const id = await txid();
      t.afterCommit(async () => {
        expect(await txid()).not.toBe(id);
      });
      return id;
    });
    expect(outer).toBeTruthy();
  });

  it('outside strict mode a nested acquisition is reported once and served', async () => {
    const lenient = createDatabase(database.url, undefined, { poolMax: 2, strictTransactions: false });
    try {
      const seen = await transact(lenient, () => lenient.transaction(async () => 'served'));
      expect(seen).toBe('served');
    } finally {
      await lenient.close();
    }
  });

  it('isUniqueViolation names the 23505 refusal, optionally by constraint', async () => {
    const error = await exec(db, `INSERT INTO things (name) VALUES ('t1')`).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    expect(isUniqueViolation(error, 'things_pkey')).toBe(true);
    expect(isUniqueViolation(error, 'other')).toBe(false);
    expect(isUniqueViolation(new Error('plain'))).toBe(false);
  });
});
