import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser, balanceOf } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';

/** Bundles, payments, the read-only ledger and invite codes: the resources that move credits. */
describe('resources: bundles, payments, transaction logs and invite codes', () => {
  let stack: TestStack;
  let admin: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    admin = await createTestUser(stack, { admin: true });
  });
  afterAll(() => stack.stop());

  const api = (method: string, path: string, user?: TestUser, body?: unknown) =>
    call(stack.contentUrl, method, path, user, body);
  const createBundle = async (body: Record<string, unknown> = {}) => {
    const answer = await api('POST', '/api/v1/bundles', admin, {
      name: 'Starter',
      credits: 100,
      price_cents: 990,
      ...body,
    });
    expect(answer.status).toBe(201);
    return answer.body as { id: string };
  };
  const createInvite = async (body: Record<string, unknown> = {}) => {
    const code = `CODE-${Math.random().toString(36).slice(2, 10)}`;
    const answer = await api('POST', '/api/v1/invite-codes', admin, {
      code,
      credits: 25,
      max_uses: 3,
      ...body,
    });
    expect(answer.status).toBe(201);
    return answer.body as { id: string; code: string };
  };

  it('lets administrators manage bundles, which every user reads (public by default)', async () => {
    const user = await createTestUser(stack);
    expect(
      (await api('POST', '/api/v1/bundles', user, { name: 'Mine', credits: 1, price_cents: 1 })).status,
    ).toBe(403);
    const bundle = await createBundle();
    expect(bundle).toMatchObject({ visibility: 'public', currency: 'CNY', is_active: true, credits: 100 });
    const listed = await api('GET', '/api/v1/bundles', user);
    expect(listed.body.map((row: { id: string }) => row.id)).toContain(bundle.id);
    expect((await api('GET', `/api/v1/bundles/${bundle.id}`, user)).status).toBe(200);
    expect((await api('PATCH', `/api/v1/bundles/${bundle.id}`, user, { price_cents: 1 })).status).toBe(403);
    expect((await api('DELETE', `/api/v1/bundles/${bundle.id}`, user)).status).toBe(403);
    const draft = await createBundle({ visibility: 'private' });
    expect((await api('GET', `/api/v1/bundles/${draft.id}`, user)).status).toBe(404);
    expect(
      (await api('PATCH', `/api/v1/bundles/${bundle.id}`, admin, { price_cents: 1290 })).body.price_cents,
    ).toBe(1290);
  });

  it('serves payments read-only: no route sets a status by hand (the payments module owns them)', async () => {
    const user = await createTestUser(stack);
    const id = '00000000-0000-4000-8000-000000000000';
    expect([404, 405]).toContain(
      (await api('PATCH', `/api/v1/payments/${id}`, admin, { status: 'paid' })).status,
    );
    expect([404, 405]).toContain((await api('DELETE', `/api/v1/payments/${id}`, admin)).status);
    expect((await api('GET', '/api/v1/payments', user)).body).toEqual([]);
  });

  it('keeps the ledger read-only and private to its owner', async () => {
    const user = await createTestUser(stack);
    const other = await createTestUser(stack);
    await api('POST', '/api/v1/invite-codes/redeem', user, { code: (await createInvite()).code });
    const [entry] = (await api('GET', '/api/v1/transaction-logs', user)).body;
    expect((await api('GET', `/api/v1/transaction-logs/${entry.id}`, other)).status).toBe(404);
    expect((await api('GET', '/api/v1/transaction-logs?scope=public', user)).status).toBe(403);
    expect((await api('GET', '/api/v1/transaction-logs?scope=all', user)).status).toBe(403);
    const all = await api('GET', '/api/v1/transaction-logs?scope=all&limit=100', admin);
    expect(all.body.map((row: { id: string }) => row.id)).toContain(entry.id);
    expect((await api('GET', '/api/v1/transaction-logs?kind=invite', user)).body).toHaveLength(1);
    expect((await api('GET', '/api/v1/transaction-logs?kind=topup', user)).body).toEqual([]);
    expect([404, 405]).toContain((await api('POST', '/api/v1/transaction-logs', user, { amount: 1 })).status);
    expect([404, 405]).toContain((await api('DELETE', `/api/v1/transaction-logs/${entry.id}`, admin)).status);
  });

  it('redeems an invite code once per user through the ledger', async () => {
    const user = await createTestUser(stack);
    const invite = await createInvite({ credits: 40 });
    const redeemed = await api('POST', '/api/v1/invite-codes/redeem', user, { code: invite.code });
    expect(redeemed.status).toBe(201);
    expect(redeemed.body).toMatchObject({ invite_code_id: invite.id, credits: 40, balance: 40 });
    const twice = await api('POST', '/api/v1/invite-codes/redeem', user, { code: invite.code });
    expect(twice.status).toBe(409);
    expect(twice.body.details).toEqual({ reason: 'already_redeemed' });
    expect(await balanceOf(stack, user.id)).toBe(40);
    const [entry] = await stack.database.db.query<{ reference: string; kind: string }>(
      'SELECT kind, reference FROM content.transaction_logs WHERE owner_id = :id',
      { replacements: { id: user.id }, type: QueryTypes.SELECT },
    );
    expect(entry).toEqual({ kind: 'invite', reference: `invite:${invite.id}:${user.id}` });
    expect((await api('GET', `/api/v1/invite-codes/${invite.id}`, admin)).body.used_count).toBe(1);
  });

  it('refuses unknown (404), expired (409) and used-up (409) codes, and users who lost the permission (403)', async () => {
    const user = await createTestUser(stack);
    expect((await api('POST', '/api/v1/invite-codes/redeem', user, { code: 'NOPE-NOPE' })).status).toBe(404);
    const expired = await createInvite({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const late = await api('POST', '/api/v1/invite-codes/redeem', user, { code: expired.code });
    expect(late.status).toBe(409);
    expect(late.body.details).toEqual({ reason: 'expired' });
    const single = await createInvite({ max_uses: 1 });
    expect(
      (await api('POST', '/api/v1/invite-codes/redeem', await createTestUser(stack), { code: single.code }))
        .status,
    ).toBe(201);
    const spent = await api('POST', '/api/v1/invite-codes/redeem', user, { code: single.code });
    expect(spent.status).toBe(409);
    expect(spent.body.details).toEqual({ reason: 'used_up' });
    const barred = await createTestUser(stack, { revoked: ['invite_redemption:create:own'] });
    expect(
      (await api('POST', '/api/v1/invite-codes/redeem', barred, { code: (await createInvite()).code }))
        .status,
    ).toBe(403);
    expect(await balanceOf(stack, user.id)).toBe(0);
    expect((await api('POST', '/api/v1/invite-codes/redeem', user, {})).status).toBe(422);
  });

  it('never passes max_uses nor pays one user twice under concurrent redemptions', async () => {
    const invite = await createInvite({ max_uses: 3, credits: 10 });
    const users = await Promise.all(Array.from({ length: 10 }, () => createTestUser(stack)));
    const answers = await Promise.all(
      [...users, users[0]!, users[0]!, users[1]!].map((user) =>
        api('POST', '/api/v1/invite-codes/redeem', user, { code: invite.code }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    expect(answers.every((answer) => answer.status === 201 || answer.status === 409)).toBe(true);
    const [totals] = await stack.database.db.query<{ entries: string; credits: string; used: number }>(
      `SELECT (SELECT count(*) FROM content.transaction_logs WHERE reference LIKE :prefix) AS entries,
              (SELECT coalesce(sum(balance), 0) FROM content.users WHERE id IN (:ids)) AS credits,
              (SELECT used_count FROM content.invite_codes WHERE id = :invite) AS used`,
      {
        replacements: {
          prefix: `invite:${invite.id}:%`,
          ids: users.map((user) => user.id),
          invite: invite.id,
        },
        type: QueryTypes.SELECT,
      },
    );
    expect(totals).toEqual({ entries: '3', credits: '30', used: 3 });
  });

  it('lets only administrators manage invite codes, and rejects a duplicate code (409)', async () => {
    const user = await createTestUser(stack);
    expect(
      (await api('POST', '/api/v1/invite-codes', user, { code: 'MINE-1234', credits: 1, max_uses: 1 }))
        .status,
    ).toBe(403);
    const invite = await createInvite();
    expect((await api('GET', `/api/v1/invite-codes/${invite.id}`, user)).status).toBe(404);
    const duplicate = await api('POST', '/api/v1/invite-codes', admin, {
      code: invite.code,
      credits: 1,
      max_uses: 1,
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe('conflict');
    await api('POST', '/api/v1/invite-codes/redeem', user, { code: invite.code });
    await api('POST', '/api/v1/invite-codes/redeem', await createTestUser(stack), { code: invite.code });
    // Lowering max_uses below the uses so far is refused by the schema: 409, nothing changes.
    expect((await api('PATCH', `/api/v1/invite-codes/${invite.id}`, admin, { max_uses: 1 })).status).toBe(
      409,
    );
    expect((await api('GET', `/api/v1/invite-codes/${invite.id}`, admin)).body).toMatchObject({
      max_uses: 3,
      used_count: 2,
    });
  });
});
