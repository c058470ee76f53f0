import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser, balanceOf } from '@muse/test-support/content';
import { api } from '@muse/test-support/login';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('users and administrator endpoints', () => {
  let stack: TestStack;
  let admin: TestUser;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    admin = await createTestUser(stack, { admin: true });
    user = await createTestUser(stack, { balance: 10 });
  });
  afterAll(() => stack.stop());

  const as = (who: TestUser, path: string, method = 'GET', body?: unknown) =>
    api(stack, path, { method, headers: who.headers, body });

  it('answers 403 to non-administrators on every administrator endpoint, and 401 without a token', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/v1/users?scope=all'],
      ['GET', '/api/v1/users/stats'],
      ['GET', `/api/v1/users/${admin.id}`],
      ['PATCH', `/api/v1/users/${admin.id}`, { nickname: 'x' }],
      ['PATCH', `/api/v1/users/${admin.id}/permission`, { is_admin: false }],
      ['DELETE', `/api/v1/users/${admin.id}`],
      ['GET', '/api/v1/server-config'],
      ['PATCH', '/api/v1/server-config', { default_credit_quota: 1 }],
      ['GET', '/api/v1/payment-api'],
      ['PATCH', '/api/v1/payment-api', { enabled: true }],
    ];
    for (const [method, path, body] of calls) {
      expect((await as(user, path, method, body)).status, `${method} ${path}`).toBe(403);
      expect((await api(stack, path, { method, body })).status, `${method} ${path} anonymous`).toBe(401);
    }
  });

  it('lists every account for administrators, with the shared pagination, sorting and time filters', async () => {
    const extra = [await createTestUser(stack), await createTestUser(stack), await createTestUser(stack)];
    const all = await as(admin, '/api/v1/users?scope=all&limit=100');
    expect(all.status).toBe(200);
    expect(all.body.map((u: { id: string }) => u.id)).toEqual(
      expect.arrayContaining([admin.id, user.id, ...extra.map((u) => u.id)]),
    );
    const page = await as(admin, '/api/v1/users?scope=all&limit=2&offset=1&desc=false&order=updated_at');
    expect(page.body).toHaveLength(2);
    expect((await as(admin, '/api/v1/users?scope=all&offset=1000')).body).toEqual([]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect(
      (await as(admin, `/api/v1/users?scope=all&created_after_datetime=${encodeURIComponent(future)}`)).body,
    ).toEqual([]);
    expect((await as(admin, '/api/v1/users?scope=all&limit=101')).status).toBe(422);
    expect((await as(admin, '/api/v1/users?scope=all&order=phone')).status).toBe(422);
    const own = await as(user, '/api/v1/users');
    expect(own.body.map((u: { id: string }) => u.id)).toEqual([user.id]);
    expect(own.body[0]).toMatchObject({ phone: user.phone, balance: 10, is_admin: false });
    expect(own.body[0].permissions.effective).toContain('conversation:create:own');
  });

  it('counts accounts', async () => {
    const before = (await as(admin, '/api/v1/users/stats')).body;
    await createTestUser(stack, { active: false });
    const stats = await as(admin, '/api/v1/users/stats');
    expect(stats.body).toMatchObject({
      total: before.total + 1,
      banned: before.banned + 1,
      active: before.active,
      new_last_day: before.new_last_day + 1,
    });
    expect(stats.status).toBe(200);
    const [counts] = await stack.database.db.query<Record<string, string>>(
      'SELECT count(*) AS total, count(*) FILTER (WHERE NOT is_active) AS banned, count(*) FILTER (WHERE is_admin) AS admins FROM content.users',
      { type: QueryTypes.SELECT },
    );
    expect(stats.body).toMatchObject({
      total: Number(counts!.total),
      banned: Number(counts!.banned),
      active: Number(counts!.total) - Number(counts!.banned),
      administrators: Number(counts!.admins),
      new_last_day: Number(counts!.total),
      new_last_week: Number(counts!.total),
      new_last_month: Number(counts!.total),
    });
  });

  it('lets everyone read and edit their own profile, and only that', async () => {
    const changed = await as(user, '/api/v1/users/me', 'PATCH', { nickname: 'Ada', bio: 'hello' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: user.id, nickname: 'Ada', bio: 'hello' });
    expect((await as(user, '/api/v1/users/me')).body.nickname).toBe('Ada');
    expect((await as(user, '/api/v1/users/me', 'PATCH', { is_active: true })).status).toBe(422);
    expect((await as(user, '/api/v1/users/me', 'PATCH', { is_admin: true })).status).toBe(422);
    expect((await as(user, '/api/v1/users/me', 'PATCH', { nickname: 'x'.repeat(65) })).status).toBe(422);
    expect((await as(user, `/api/v1/users/${user.id}`)).status).toBe(200);
  });

  it('accepts as avatar only a file the caller may read, else 404 naming the field and nothing changes', async () => {
    const owner = await createTestUser(stack);
    const other = await createTestUser(stack);
    const addFile = async (ownerId: string, visibility: string) => {
      const [row] = await stack.database.db.query<{ id: string }>(
        `INSERT INTO content.files (owner_id, visibility, name) VALUES (:ownerId, :visibility, 'a.png') RETURNING id`,
        { replacements: { ownerId, visibility }, type: QueryTypes.SELECT },
      );
      return row!.id;
    };
    const privateOfOther = await addFile(other.id, 'private');
    for (const avatar of [UNKNOWN, privateOfOther]) {
      const refused = await as(owner, '/api/v1/users/me', 'PATCH', { nickname: 'n', avatar_file_id: avatar });
      expect(refused.status).toBe(404);
      expect(refused.body.message).toMatch(/avatar_file_id/);
    }
    expect((await as(owner, '/api/v1/users/me')).body).toMatchObject({ nickname: '', avatar_file_id: null });

    const own = await addFile(owner.id, 'private');
    expect((await as(owner, '/api/v1/users/me', 'PATCH', { avatar_file_id: own })).body.avatar_file_id).toBe(
      own,
    );
    const publicOfOther = await addFile(other.id, 'public');
    const changed = await as(owner, '/api/v1/users/me', 'PATCH', { avatar_file_id: publicOfOther });
    expect(changed.body.avatar_file_id).toBe(publicOfOther);
    expect((await as(owner, '/api/v1/users/me', 'PATCH', { avatar_file_id: null })).body.avatar_file_id).toBe(
      null,
    );
    expect((await as(admin, `/api/v1/users/${owner.id}`, 'PATCH', { avatar_file_id: UNKNOWN })).status).toBe(
      404,
    );
  });

  it('bans and unbans: a banned user is refused with 403 on the next request', async () => {
    const target = await createTestUser(stack);
    expect((await as(target, '/api/v1/users/me')).status).toBe(200);
    const banned = await as(admin, `/api/v1/users/${target.id}`, 'PATCH', { is_active: false });
    expect(banned.status).toBe(200);
    expect(banned.body.is_active).toBe(false);
    expect((await as(target, '/api/v1/users/me')).status).toBe(403);
    expect((await as(admin, `/api/v1/users/${target.id}`, 'PATCH', { is_active: true })).status).toBe(200);
    expect((await as(target, '/api/v1/users/me')).status).toBe(200);
  });

  it('adjusts credits through the ledger, never below zero, once per reference', async () => {
    const target = await createTestUser(stack, { balance: 5 });
    const added = await as(admin, `/api/v1/users/${target.id}`, 'PATCH', {
      credit_adjustment: { amount: 20, reason: 'goodwill', reference: 'ticket-1' },
    });
    expect(added.status).toBe(200);
    expect(added.body.balance).toBe(25);
    expect(
      (
        await as(admin, `/api/v1/users/${target.id}`, 'PATCH', {
          credit_adjustment: { amount: 20, reason: 'goodwill', reference: 'ticket-1' },
        })
      ).body.balance,
    ).toBe(25);

    const refused = await as(admin, `/api/v1/users/${target.id}`, 'PATCH', {
      nickname: 'changed',
      credit_adjustment: { amount: -26, reason: 'too much' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].path).toBe('credit_adjustment.amount');
    expect(await balanceOf(stack, target.id)).toBe(25);
    expect((await as(admin, `/api/v1/users/${target.id}`)).body.nickname).toBe('');

    expect(
      (
        await as(admin, `/api/v1/users/${target.id}`, 'PATCH', {
          credit_adjustment: { amount: -25, reason: 'reset' },
        })
      ).body.balance,
    ).toBe(0);
    const entries = await stack.database.db.query<{ kind: string; amount: string; description: string }>(
      'SELECT kind, amount, description FROM content.transaction_logs WHERE owner_id = :id ORDER BY created_at',
      { replacements: { id: target.id }, type: QueryTypes.SELECT },
    );
    expect(entries).toEqual([
      { kind: 'adjustment', amount: '20', description: 'goodwill' },
      { kind: 'adjustment', amount: '-25', description: 'reset' },
    ]);
    expect(
      (
        await as(admin, `/api/v1/users/${target.id}`, 'PATCH', {
          credit_adjustment: { amount: 0, reason: 'zero' },
        })
      ).status,
    ).toBe(422);
  });

  it('keeps adjustment references per account: the same reference credits another account too', async () => {
    const first = await createTestUser(stack, { balance: 0 });
    const second = await createTestUser(stack, { balance: 0 });
    const adjustment = { credit_adjustment: { amount: 7, reason: 'launch gift', reference: 'launch-gift' } };
    expect((await as(admin, `/api/v1/users/${first.id}`, 'PATCH', adjustment)).body.balance).toBe(7);
    const other = await as(admin, `/api/v1/users/${second.id}`, 'PATCH', adjustment);
    expect(other.status).toBe(200);
    expect(other.body.balance).toBe(7);
    expect(await balanceOf(stack, first.id)).toBe(7);
    expect(await balanceOf(stack, second.id)).toBe(7);
  });

  it('grants and revokes permission triples and administrator rights, effective on the next request', async () => {
    const target = await createTestUser(stack);
    const revoked = await as(admin, `/api/v1/users/${target.id}/permission`, 'PATCH', {
      revoke: ['conversation:create:own'],
      grant: ['generator:create:own'],
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.permissions.revoked).toEqual(['conversation:create:own']);
    expect(revoked.body.permissions.granted).toEqual(['generator:create:own']);
    expect(revoked.body.permissions.effective).not.toContain('conversation:create:own');
    expect(revoked.body.permissions.effective).toContain('generator:create:own');
    const reset = await as(admin, `/api/v1/users/${target.id}/permission`, 'PATCH', {
      reset: ['conversation:create:own'],
    });
    expect(reset.body.permissions.revoked).toEqual([]);
    expect(
      (await as(admin, `/api/v1/users/${target.id}/permission`, 'PATCH', { grant: ['rocket:launch:all'] }))
        .status,
    ).toBe(422);
    expect((await as(admin, `/api/v1/users/${target.id}/permission`, 'PATCH', {})).status).toBe(422);

    expect((await as(target, '/api/v1/users/stats')).status).toBe(403);
    expect(
      (await as(admin, `/api/v1/users/${target.id}/permission`, 'PATCH', { is_admin: true })).body.is_admin,
    ).toBe(true);
    expect((await as(target, '/api/v1/users/stats')).status).toBe(200);
    expect((await as(target, '/api/v1/users?scope=all')).status).toBe(200);
    expect(
      (await as(admin, `/api/v1/users/${target.id}/permission`, 'PATCH', { is_admin: false })).status,
    ).toBe(200);
    expect((await as(target, '/api/v1/users/stats')).status).toBe(403);
    expect((await as(target, '/api/v1/users?scope=all')).status).toBe(403);
  });

  it('deletes an account with its ledger; its token then answers 401', async () => {
    const target = await createTestUser(stack, { balance: 3 });
    expect((await as(admin, `/api/v1/users/${target.id}`, 'DELETE')).status).toBe(204);
    expect((await as(admin, `/api/v1/users/${target.id}`)).status).toBe(404);
    expect((await as(target, '/api/v1/users/me')).status).toBe(401);
  });

  it('answers 404 to an unknown id', async () => {
    expect((await as(admin, `/api/v1/users/${UNKNOWN}`)).status).toBe(404);
    expect((await as(admin, `/api/v1/users/${UNKNOWN}`, 'PATCH', { nickname: 'x' })).status).toBe(404);
    expect((await as(admin, `/api/v1/users/${UNKNOWN}/permission`, 'PATCH', { is_admin: true })).status).toBe(
      404,
    );
    expect((await as(admin, `/api/v1/users/${UNKNOWN}`, 'DELETE')).status).toBe(404);
  });

  it('reads and changes the server configuration; bad values answer 422', async () => {
    const current = await as(admin, '/api/v1/server-config');
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      code_cooldown_seconds: 60,
      code_ttl_seconds: 300,
      default_credit_quota: 100,
    });
    const changed = await as(admin, '/api/v1/server-config', 'PATCH', {
      default_credit_quota: 5,
      max_upload_bytes: 1048576,
    });
    expect(changed.body).toMatchObject({
      default_credit_quota: 5,
      max_upload_bytes: 1048576,
      code_cooldown_seconds: 60,
    });
    expect((await as(admin, '/api/v1/server-config')).body.default_credit_quota).toBe(5);
    expect((await as(admin, '/api/v1/server-config', 'PATCH', { default_credit_quota: -1 })).status).toBe(
      422,
    );
    expect((await as(admin, '/api/v1/server-config', 'PATCH', { unknown_setting: 1 })).status).toBe(422);
    expect((await as(admin, '/api/v1/server-config', 'PATCH', { code_ttl_seconds: 'long' })).status).toBe(
      422,
    );
  });

  it('keeps payment-provider secrets write-only', async () => {
    const initial = await as(admin, '/api/v1/payment-api');
    expect(initial.body).toMatchObject({ provider: 'none', enabled: false, secrets_set: [] });
    const changed = await as(admin, '/api/v1/payment-api', 'PATCH', {
      provider: 'alipay',
      enabled: true,
      app_id: '2021000000000000',
      notify_url: 'https://muse.example.com/api/v1/payments/notify',
      secrets: { private_key: 'PRIVATE-KEY-MATERIAL' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      provider: 'alipay',
      enabled: true,
      app_id: '2021000000000000',
      secrets_set: ['private_key'],
    });
    expect(JSON.stringify(changed.body)).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(JSON.stringify((await as(admin, '/api/v1/payment-api')).body)).not.toContain(
      'PRIVATE-KEY-MATERIAL',
    );
    const removed = await as(admin, '/api/v1/payment-api', 'PATCH', {
      secrets: { private_key: null, api_key: 'k' },
    });
    expect(removed.body.secrets_set).toEqual(['api_key']);
    expect((await as(admin, '/api/v1/payment-api', 'PATCH', { provider: 'paypal' })).status).toBe(422);
    expect((await as(admin, '/api/v1/payment-api', 'PATCH', { notify_url: 'not a url' })).status).toBe(422);
    expect((await as(admin, '/api/v1/payment-api', 'PATCH', { secret: 'x' })).status).toBe(422);
  });

  it('keeps one active administrator: the last cannot give up the rights, be banned or be deleted (409)', async () => {
    // This file's database: every other administrator steps down, so `admin` is the last one.
    await stack.database.db.query('UPDATE content.users SET is_admin = false WHERE id <> :id', {
      replacements: { id: admin.id },
    });
    const refusals: [string, string, unknown?][] = [
      ['PATCH', `/api/v1/users/${admin.id}/permission`, { is_admin: false }],
      ['PATCH', `/api/v1/users/${admin.id}`, { is_active: false, nickname: 'gone' }],
      ['DELETE', `/api/v1/users/${admin.id}`],
    ];
    for (const [method, path, body] of refusals) {
      const refused = await as(admin, path, method, body);
      expect([refused.status, refused.body.code], `${method} ${path}`).toEqual([409, 'conflict']);
    }
    // Nothing was half-written.
    expect((await as(admin, `/api/v1/users/${admin.id}`)).body).toMatchObject({
      is_admin: true,
      is_active: true,
      nickname: expect.not.stringMatching(/^gone$/),
    });

    // Two administrators demoting each other at once: exactly one of them succeeds.
    const second = await createTestUser(stack, { admin: true });
    const statuses = await Promise.all([
      as(admin, `/api/v1/users/${second.id}/permission`, 'PATCH', { is_admin: false }),
      as(second, `/api/v1/users/${admin.id}/permission`, 'PATCH', { is_admin: false }),
    ]).then((replies) => replies.map((reply) => reply.status).sort());
    expect(statuses).toEqual([200, 409]);
    expect((await as(admin, '/api/v1/users/stats')).body.administrators).toBe(1);
    // Whoever is left restores the other, for the tests after this one.
    await stack.database.db.query('UPDATE content.users SET is_admin = true WHERE id = :id', {
      replacements: { id: admin.id },
    });
  });
});
