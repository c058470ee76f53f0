import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone, type TestUser } from '@muse/test-support/content';
import { addWebhookProvider, api, clientAddress, exchangeCode, requestCode } from '@muse/test-support/login';
import type { CodeReceiver } from '@muse/test-support/fakes/code-receivers';

describe('phone login', () => {
  let stack: TestStack;
  let admin: TestUser;
  let receiver: CodeReceiver & { providerId: string };
  const setConfig = (changes: Record<string, number>) =>
    api(stack, '/api/v1/server-config', { method: 'PATCH', headers: admin.headers, body: changes });
  const query = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
    stack.database.db.query<T>(sql, { replacements, type: QueryTypes.SELECT });

  beforeAll(async () => {
    // These tests play clients at many addresses behind a proxy on this machine.
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1', MUSE_TRUST_PROXY: 'loopback' });
    admin = await createTestUser(stack, { admin: true });
  });
  afterAll(async () => {
    await receiver?.close();
    await stack.stop();
  });
  beforeEach(async () => {
    await stack.database.db.query(
      'DELETE FROM content.server_config; INSERT INTO content.server_config (id) VALUES (1)',
    );
  });

  it('answers 501 when no provider is enabled, and stores no code', async () => {
    const phone = randomPhone();
    const response = await requestCode(stack, phone);
    expect(response.status).toBe(501);
    expect(response.body.code).toBe('not_implemented');
    expect(await query('SELECT 1 FROM content.verification_codes WHERE phone = :phone', { phone })).toEqual(
      [],
    );
  });

  it('registers a new number: code by webhook, token with exactly the spec claims, credits through the ledger', async () => {
    receiver = await addWebhookProvider(stack, admin);
    await setConfig({ default_credit_quota: 42 });
    const phone = randomPhone();
    expect((await requestCode(stack, phone)).status).toBe(204);
    const code = receiver.codeFor(phone)!;
    expect(code).toMatch(/^\d{6}$/);
    expect(receiver.codes.at(-1)).toEqual({ phone, code, code_type: 'sms' });
    const [stored] = await query<{ code_hash: string }>(
      'SELECT code_hash FROM content.verification_codes WHERE phone = :phone',
      { phone },
    );
    expect(stored!.code_hash).not.toContain(code);

    const login = await exchangeCode(stack, phone, code, clientAddress(), 'web');
    expect(login.status).toBe(200);
    const claims = decodeJwt(login.body.token);
    expect(decodeProtectedHeader(login.body.token).alg).toBe('HS256');
    expect(Object.keys(claims).sort()).toEqual(['exp', 'iat', 'is_active', 'permission', 'sub']);
    expect(claims).toMatchObject({ is_active: true, permission: { is_admin: false } });
    expect(claims.exp! - claims.iat!).toBe(stack.config.MUSE_JWT_TTL_SECONDS);

    const me = await api(stack, '/api/v1/users/me', {
      headers: { Authorization: `Bearer ${login.body.token}` },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: claims.sub,
      phone,
      balance: 42,
      last_login_source: 'web',
      is_admin: false,
    });
    expect(me.body.last_login_at).not.toBeNull();
    const entries = await query<{ kind: string; amount: string; reference: string }>(
      'SELECT kind, amount, reference FROM content.transaction_logs WHERE owner_id = :id',
      { id: claims.sub },
    );
    expect(entries).toEqual([{ kind: 'grant', amount: '42', reference: `signup:${claims.sub}` }]);
  });

  it('logs an existing number in again without a second grant, and records the new source', async () => {
    const phone = randomPhone();
    await setConfig({ code_cooldown_seconds: 0 });
    for (const source of ['web', 'app']) {
      await requestCode(stack, phone);
      expect(
        (await exchangeCode(stack, phone, receiver.codeFor(phone)!, clientAddress(), source)).status,
      ).toBe(200);
    }
    const [user] = await query<{ id: string; last_login_source: string; balance: string }>(
      'SELECT id, last_login_source, balance FROM content.users WHERE phone = :phone',
      { phone },
    );
    expect(user).toMatchObject({ last_login_source: 'app', balance: '100' });
    expect(
      await query('SELECT 1 FROM content.transaction_logs WHERE owner_id = :id', { id: user!.id }),
    ).toHaveLength(1);
  });

  it('refuses a number that is not an 11-digit mainland mobile number, or an unknown code_type, with 422', async () => {
    for (const phone of ['1380013800', '138001380001', '12800138000', '+8613800138000', 'abcdefghijk']) {
      const response = await requestCode(stack, encodeURIComponent(phone));
      expect(response.status, phone).toBe(422);
      expect(response.body.details[0].path).toContain('phone_number');
    }
    expect((await requestCode(stack, randomPhone(), clientAddress(), 'fax')).status).toBe(422);
    expect((await api(stack, '/api/v1/auth/verification-code')).status).toBe(422);
    expect(
      (
        await api(stack, '/api/v1/auth/token', {
          method: 'POST',
          body: { phone: '123', verification_code: '1' },
        })
      ).status,
    ).toBe(422);
    expect(
      (await api(stack, '/api/v1/auth/token', { method: 'POST', body: { phone: randomPhone() } })).status,
    ).toBe(422);
  });

  it('answers 429 with Retry-After to a second request inside the cool-down, and keeps the first code', async () => {
    const phone = randomPhone();
    expect((await requestCode(stack, phone)).status).toBe(204);
    const first = receiver.codeFor(phone)!;
    const again = await requestCode(stack, phone);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(55);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(receiver.codes.filter((entry) => entry.phone === phone)).toHaveLength(1);
    expect((await exchangeCode(stack, phone, first)).status).toBe(200);
  });

  it('lets exactly one of many concurrent requests for a number through', async () => {
    const phone = randomPhone();
    const answers = await Promise.all(Array.from({ length: 8 }, () => requestCode(stack, phone)));
    expect(answers.map((a) => a.status).sort()).toEqual([204, ...Array(7).fill(429)]);
  });

  it('limits codes per number (from one address) per day and per client address per day', async () => {
    await setConfig({ code_cooldown_seconds: 0, codes_per_phone_per_day: 2, codes_per_ip_per_day: 3 });
    const phone = randomPhone();
    const from = clientAddress();
    expect((await requestCode(stack, phone, from)).status).toBe(204);
    expect((await requestCode(stack, phone, from)).status).toBe(204);
    const third = await requestCode(stack, phone, from);
    expect(third.status).toBe(429);
    expect(third.body.message).toMatch(/number/);

    const address = clientAddress();
    for (let i = 0; i < 3; i++) expect((await requestCode(stack, randomPhone(), address)).status).toBe(204);
    const refused = await requestCode(stack, randomPhone(), address);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/address/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers 400 to a wrong code and invalidates the code after the allowed wrong tries', async () => {
    await setConfig({ code_max_attempts: 3 });
    const phone = randomPhone();
    await requestCode(stack, phone);
    const code = receiver.codeFor(phone)!;
    const wrong = code === '000000' ? '111111' : '000000';
    const first = await exchangeCode(stack, phone, wrong);
    expect(first.status).toBe(400);
    expect(first.body.code).toBe('bad_request');
    expect((await exchangeCode(stack, phone, wrong)).status).toBe(400);
    expect((await exchangeCode(stack, phone, wrong)).status).toBe(400);
    expect((await exchangeCode(stack, phone, code)).status).toBe(400);
    expect(await query('SELECT 1 FROM content.users WHERE phone = :phone', { phone })).toEqual([]);
  });

  it('answers 400 to an expired code, a used code, and a number that never asked', async () => {
    const phone = randomPhone();
    await requestCode(stack, phone);
    const code = receiver.codeFor(phone)!;
    await stack.database.db.query(
      `UPDATE content.verification_codes SET expires_at = now() - interval '1 second' WHERE phone = :phone`,
      {
        replacements: { phone },
      },
    );
    expect((await exchangeCode(stack, phone, code)).status).toBe(400);

    const other = randomPhone();
    await requestCode(stack, other);
    expect((await exchangeCode(stack, other, receiver.codeFor(other)!)).status).toBe(200);
    expect((await exchangeCode(stack, other, receiver.codeFor(other)!)).status).toBe(400);
    expect((await exchangeCode(stack, randomPhone(), '123456')).status).toBe(400);
  });

  it('uses a code once even when two logins race', async () => {
    const phone = randomPhone();
    await requestCode(stack, phone);
    const code = receiver.codeFor(phone)!;
    const answers = await Promise.all([exchangeCode(stack, phone, code), exchangeCode(stack, phone, code)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(await query('SELECT 1 FROM content.users WHERE phone = :phone', { phone })).toHaveLength(1);
  });

  it('answers 429 to too many login attempts for a number from one address, and from one address', async () => {
    await setConfig({ login_attempts_per_phone_per_hour: 3, login_attempts_per_ip_per_hour: 4 });
    const phone = randomPhone();
    const from = clientAddress();
    for (let i = 0; i < 3; i++) expect((await exchangeCode(stack, phone, '000000', from)).status).toBe(400);
    const limited = await exchangeCode(stack, phone, '000000', from);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    const address = clientAddress();
    for (let i = 0; i < 4; i++)
      expect((await exchangeCode(stack, randomPhone(), '000000', address)).status).toBe(400);
    expect((await exchangeCode(stack, randomPhone(), '000000', address)).status).toBe(429);
  });

  it('refuses to log a banned account in with 403', async () => {
    const phone = randomPhone();
    await stack.database.db.query('INSERT INTO content.users (phone, is_active) VALUES (:phone, false)', {
      replacements: { phone },
    });
    await requestCode(stack, phone);
    const login = await exchangeCode(stack, phone, receiver.codeFor(phone)!);
    expect(login.status).toBe(403);
    expect(login.body.token).toBeUndefined();
  });

  it('delivers voice codes through a provider that can, and fails over to the next provider', async () => {
    await setConfig({ code_cooldown_seconds: 0 });
    const backup = await addWebhookProvider(stack, admin, { priority: 20 });
    receiver.failing = true;
    try {
      const phone = randomPhone();
      expect((await requestCode(stack, phone, clientAddress(), 'voice')).status).toBe(204);
      expect(backup.codes.at(-1)).toMatchObject({ phone, code_type: 'voice' });
      expect(receiver.codeFor(phone)).toBeUndefined();

      backup.failing = true;
      const unlucky = randomPhone();
      const failed = await requestCode(stack, unlucky);
      expect(failed.status).toBe(502);
      expect(failed.body.code).toBe('code_delivery_failed');
      expect(
        await query('SELECT 1 FROM content.verification_codes WHERE phone = :phone AND expires_at > now()', {
          phone: unlucky,
        }),
      ).toEqual([]);
      backup.failing = false;
      expect((await requestCode(stack, unlucky)).status).toBe(204);
    } finally {
      receiver.failing = false;
      await api(stack, `/api/v1/verification-code-providers/${backup.providerId}`, {
        method: 'DELETE',
        headers: admin.headers,
      });
      await backup.close();
    }
  });
});

describe('client addresses with the default MUSE_TRUST_PROXY (nothing trusted)', () => {
  let stack: TestStack;
  let receiver: CodeReceiver & { providerId: string };
  beforeAll(async () => {
    // By default nothing in front of the API is trusted, so X-Forwarded-For is the client's own claim.
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1' });
  });
  afterAll(async () => {
    await receiver?.close();
    await stack.stop();
  });

  it('counts a client against its own address, whatever X-Forwarded-For it sends', async () => {
    const admin = await createTestUser(stack, { admin: true });
    receiver = await addWebhookProvider(stack, admin);
    const configured = await api(stack, '/api/v1/server-config', {
      method: 'PATCH',
      headers: admin.headers,
      body: { codes_per_ip_per_day: 2 },
    });
    expect(configured.status).toBe(200);
    expect((await requestCode(stack, randomPhone(), clientAddress())).status).toBe(204);
    expect((await requestCode(stack, randomPhone(), clientAddress())).status).toBe(204);
    const spoofed = await requestCode(stack, randomPhone(), clientAddress());
    expect(spoofed.status).toBe(429);
    expect(spoofed.body.message).toMatch(/address/);
  });
});
