import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { ledger } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, balanceOf } from '@muse/test-support/content';

describe('the credit ledger', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  const db = () => stack.database.db;
  const entriesOf = (id: string) =>
    db().query<{ kind: string; amount: string }>(
      'SELECT kind, amount FROM content.transaction_logs WHERE owner_id = :id ORDER BY created_at',
      { replacements: { id }, type: QueryTypes.SELECT },
    );

  it('moves the balance and writes the entry together', async () => {
    const user = await createTestUser(stack);
    const entry = await db().transaction((t) =>
      ledger.postEntry(db(), t, { userId: user.id, amount: 100, kind: 'grant' }),
    );
    expect(entry).toMatchObject({ amount: 100, balance_after: 100, kind: 'grant' });
    expect(await balanceOf(stack, user.id)).toBe(100);
  });

  it('refuses a debit larger than the balance with 402 and moves nothing', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    const attempt = db().transaction((t) =>
      ledger.postEntry(db(), t, { userId: user.id, amount: -6, kind: 'charge' }),
    );
    await expect(attempt).rejects.toMatchObject({ status: 402 });
    expect(await balanceOf(stack, user.id)).toBe(5);
    expect(await entriesOf(user.id)).toEqual([]);
  });

  it('posts an entry with the same reference once', async () => {
    const user = await createTestUser(stack, { balance: 50 });
    const post = () =>
      db().transaction((t) =>
        ledger.postEntry(db(), t, { userId: user.id, amount: -10, kind: 'charge', reference: 'task-1' }),
      );
    const first = await post();
    const second = await post();
    expect(second.id).toBe(first.id);
    expect(await balanceOf(stack, user.id)).toBe(40);
  });

  it('refunds a charge at most once, even when asked concurrently', async () => {
    const user = await createTestUser(stack, { balance: 30 });
    const charge = await db().transaction((t) =>
      ledger.postEntry(db(), t, { userId: user.id, amount: -30, kind: 'charge', reference: 'task-2' }),
    );
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => db().transaction((t) => ledger.refundCharge(db(), t, charge.id))),
    );
    const refundIds = new Set(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : [])));
    expect(refundIds.size).toBe(1);
    expect(await balanceOf(stack, user.id)).toBe(30);
    expect((await entriesOf(user.id)).map((e) => e.kind)).toEqual(['charge', 'refund']);
  });

  it('never lets concurrent charges take the balance below zero', async () => {
    const user = await createTestUser(stack, { balance: 100 });
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) =>
        db().transaction((t) =>
          ledger.postEntry(db(), t, { userId: user.id, amount: -10, kind: 'charge', reference: `race-${i}` }),
        ),
      ),
    );
    const accepted = results.filter((r) => r.status === 'fulfilled').length;
    expect(accepted).toBe(10);
    expect(
      results
        .filter((r) => r.status === 'rejected')
        .every((r) => (r.reason as { status: number }).status === 402),
    ).toBe(true);
    expect(await balanceOf(stack, user.id)).toBe(0);
    expect((await entriesOf(user.id)).length).toBe(10);
  });
});
