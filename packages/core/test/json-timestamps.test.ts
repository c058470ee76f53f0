import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec, selectRows, transact, type Sequelize } from '@muse/core';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';

/**
 * `selectRows(…, { jsonTimestamps: true })` reads `timestamptz` values as the text their Dates
 * would be in JSON, without making the Dates: the rows serialise to the same JSON, byte for byte,
 * as the Dates do, whatever the timestamp (fractions of every length, the float cases of
 * `1000 * parseFloat(fraction)`, years below 1000 and above 9999, BC, infinity, null, another
 * session time zone), in or out of a transaction and prepared or not.
 */
describe('timestamps read as their JSON text', () => {
  let database: TestDatabase;
  let db: Sequelize;
  beforeAll(async () => {
    database = await createTestDatabase({ migrated: false });
    db = database.db;
    await exec(db, 'CREATE TABLE moments (n serial PRIMARY KEY, at timestamptz, at_plain timestamp)');
    const fixed = [
      '2026-11-28 11:24:00+00',
      '2026-11-28 11:24:00.1+00',
      '2026-11-28 11:24:00.29+00',
      '2026-11-28 11:24:00.57+00',
      '2026-11-28 11:24:00.999999+00',
      '2026-11-28 11:24:00.000001+00',
      '2026-02-28 23:59:59.9995+00',
      '1000-01-01 00:00:00.5+00',
      '0999-12-31 23:59:59.123+00',
      '0042-06-01 12:00:00+00',
      '12345-01-01 00:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      'infinity',
      '-infinity',
    ];
    for (const at of fixed)
      await exec(db, 'INSERT INTO moments (at) VALUES (CAST(:at AS timestamptz))', { at });
    await exec(db, 'INSERT INTO moments (at) VALUES (NULL)');
    // A thousand random instants with microseconds, from 1900 to 2100.
    await exec(
      db,
      `INSERT INTO moments (at, at_plain)
         SELECT t, t::timestamp FROM (
           SELECT timestamptz '1900-01-01 00:00:00+00' + random() * interval '200 years' AS t
           FROM generate_series(1, 1000)) AS random_instants`,
    );
  });
  afterAll(() => database.drop());

  const read = (options: { prepare?: boolean; jsonTimestamps?: boolean }) =>
    selectRows<object>(db, 'SELECT n, at, at_plain FROM moments ORDER BY n', [], options);

  it('gives the JSON the Dates give, prepared or not, and strings where a UTC session sends the usual text', async () => {
    const dates = await read({});
    for (const prepare of [true, false]) {
      const texts = await read({ prepare, jsonTimestamps: true });
      expect(JSON.stringify(texts)).toBe(JSON.stringify(dates));
      expect(texts.length).toBe(1015);
    }
    const [row] = await read({ jsonTimestamps: true });
    expect(row).toMatchObject({ at: '2026-11-28T11:24:00.000Z' });
  });

  it('gives the same in a transaction and in another session time zone (Dates made from the text)', async () => {
    await transact(db, async () => {
      await exec(db, "SET LOCAL TIME ZONE 'Asia/Kolkata'");
      const dates = await read({});
      const texts = await read({ jsonTimestamps: true });
      expect(JSON.stringify(texts)).toBe(JSON.stringify(dates));
      expect((texts[0] as { at: unknown }).at).toBeInstanceOf(Date);
    });
  });

  it('leaves the rows read without the option as Dates', async () => {
    const [row] = await read({});
    expect((row as { at: unknown }).at).toBeInstanceOf(Date);
  });
});
