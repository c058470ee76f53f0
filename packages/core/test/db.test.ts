import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createDatabase, databaseUnavailable, selectRows, type Sequelize } from '@muse/core';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';

/** One column of each type the `kinds` table below holds. */
const KINDS = {
  u: 'uuid',
  t: 'text',
  v: 'character varying',
  b: 'boolean',
  s: 'smallint',
  i: 'integer',
  big: 'bigint',
  f: 'double precision',
  texts: 'text[]',
  uuids: 'uuid[]',
  at: 'timestamp with time zone',
  doc: 'jsonb',
};

describe('selectRows (the request path reads on a pg pool of their own)', () => {
  let database: TestDatabase;
  let db: Sequelize;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.db;
  });
  afterAll(() => database.drop());

  it('answers the values and types Sequelize answers, for every column type of the content tables', async () => {
    // Its parsers differ from Sequelize's for a few types (`date`, ranges): a content table with one
    // fails here, since selectRows serves the account read and every list.
    const [used] = await db.query(
      `SELECT DISTINCT format_type(a.atttypid, NULL) AS type FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'content' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`,
    );
    expect(Object.values(KINDS)).toEqual(
      expect.arrayContaining((used as { type: string }[]).map(({ type }) => type)),
    );

    await db.query(`CREATE TABLE public.kinds (${Object.entries(KINDS)
      .map(([name, type]) => `${name} ${type}`)
      .join(', ')});
      INSERT INTO public.kinds VALUES
        (gen_random_uuid(), 'text', 'varchar', true, 7, 2147483647, 9007199254740993, 0.25,
         ARRAY['a', 'b,c'], ARRAY[gen_random_uuid()], '2026-11-26 05:39:00.123456+00', '{"n": 1, "list": [true]}'),
        (NULL, NULL, NULL, false, NULL, -1, NULL, NULL, '{}', NULL, NULL, 'null')`);
    const sql = `SELECT ${Object.keys(KINDS).join(', ')} FROM public.kinds ORDER BY i`;
    const viaSequelize = await db.query(sql, { type: QueryTypes.SELECT });
    expect(await selectRows(db, sql, [])).toStrictEqual(viaSequelize);
    expect(await selectRows(db, `${sql} LIMIT $1`, [1], { prepare: false })).toStrictEqual(
      viaSequelize.slice(0, 1),
    );
  });

  it('answers "busy" (503, Retry-After 2) when no connection comes free within the acquire timeout', async () => {
    const small = createDatabase(database.url, undefined, { poolMax: 1, acquireTimeoutMs: 200 });
    try {
      const slow = selectRows(small, 'SELECT pg_sleep(1)', [], { prepare: false });
      const error = await selectRows(small, 'SELECT 1 AS one', []).catch((e: unknown) => e);
      expect(databaseUnavailable(error)).toMatchObject({
        status: 503,
        message: 'The database is busy; try again shortly',
        headers: { 'Retry-After': '2' },
      });
      await slow;
      expect(await selectRows(small, 'SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
    } finally {
      await small.close();
    }
  });

  it('close() ends its connections too', async () => {
    const other = createDatabase(database.url, undefined, { poolMax: 2 });
    await selectRows(other, `SELECT 1 AS one, 'closing-pool' AS marker`, [], { prepare: false });
    await other.close();
    await expect(selectRows(other, 'SELECT 1 AS one', [])).rejects.toThrow();
    await other.close(); // a second close is harmless
  });
});
