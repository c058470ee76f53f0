import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { SignJWT, base64url } from 'jose';
import { listen, loadConfig, type RunningServer } from '@muse/core';
import { createContentApp, createTokenSigner } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { api } from '@muse/test-support/login';

describe('bearer tokens on every request', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  const me = (authorization?: string, url = stack.contentUrl) =>
    fetch(`${url}/api/v1/users/me`, { headers: authorization ? { Authorization: authorization } : {} });
  const secretKey = () => new TextEncoder().encode(stack.config.MUSE_JWT_SECRET!);
  const claimsOf = (id: string) => ({ is_active: true, permission: { is_admin: false }, sub: id });

  async function expectUnauthorized(response: Response) {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await response.json()) as { code: string }).code).toBe('unauthorized');
  }

  it('accepts a valid token', async () => {
    const user = await createTestUser(stack);
    expect((await me(`Bearer ${user.token}`)).status).toBe(200);
  });

  it('answers 401 with WWW-Authenticate: Bearer to a missing or malformed token', async () => {
    await expectUnauthorized(await me());
    await expectUnauthorized(await me('Bearer'));
    await expectUnauthorized(await me('Bearer not-a-jwt'));
    await expectUnauthorized(await me('Bearer a.b.c'));
    const user = await createTestUser(stack);
    await expectUnauthorized(await me(`Basic ${user.token}`));
    await expectUnauthorized(await me(`Bearer ${user.token} extra`));
  });

  it('answers 401 to a tampered token (payload changed to claim administrator rights)', async () => {
    const user = await createTestUser(stack);
    const [header, payload, signature] = user.token.split('.');
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload!))) as Record<
      string,
      unknown
    >;
    const forged = base64url.encode(JSON.stringify({ ...claims, permission: { is_admin: true } }));
    await expectUnauthorized(await me(`Bearer ${header}.${forged}.${signature}`));
    const flipped = signature!.slice(0, -2) + (signature!.endsWith('AA') ? 'BB' : 'AA');
    await expectUnauthorized(await me(`Bearer ${header}.${payload}.${flipped}`));
  });

  it('answers 401 to an unsigned token (alg: none)', async () => {
    const user = await createTestUser(stack);
    const now = Math.floor(Date.now() / 1000);
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
    const payload = base64url.encode(JSON.stringify({ ...claimsOf(user.id), iat: now, exp: now + 3600 }));
    await expectUnauthorized(await me(`Bearer ${header}.${payload}.`));
    await expectUnauthorized(await me(`Bearer ${header}.${payload}`));
  });

  it('answers 401 to a token signed with another secret or another algorithm', async () => {
    const user = await createTestUser(stack);
    const other = createTokenSigner(randomBytes(32).toString('hex'), 3600);
    await expectUnauthorized(
      await me(`Bearer ${await other.sign({ id: user.id, isActive: true, isAdmin: false })}`),
    );
    const hs512 = await new SignJWT(claimsOf(user.id))
      .setProtectedHeader({ alg: 'HS512' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(secretKey());
    await expectUnauthorized(await me(`Bearer ${hs512}`));
  });

  it('answers 401 to a token without one of the claims the spec lists (sub, iat, exp) or with one of the wrong type', async () => {
    const user = await createTestUser(stack);
    const now = Math.floor(Date.now() / 1000);
    const signed = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secretKey());
    const complete = { ...claimsOf(user.id), iat: now, exp: now + 3600 };
    expect((await me(`Bearer ${await signed(complete)}`)).status).toBe(200);
    const wrongType = { sub: 42, iat: String(complete.iat), exp: String(complete.exp) };
    for (const claim of ['sub', 'iat', 'exp'] as const) {
      const { [claim]: _left, ...without } = complete;
      await expectUnauthorized(await me(`Bearer ${await signed(without)}`));
      await expectUnauthorized(
        await me(`Bearer ${await signed({ ...complete, [claim]: wrongType[claim] })}`),
      );
    }
  });

  it('answers 401 to an expired token', async () => {
    const user = await createTestUser(stack);
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT(claimsOf(user.id))
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 60)
      .sign(secretKey());
    await expectUnauthorized(await me(`Bearer ${expired}`));
  });

  it('keeps a verified token only until it expires, and verifies any other string anew', async () => {
    const secret = randomBytes(32).toString('hex');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const tokens = createTokenSigner(secret, 60);
      const token = await tokens.sign({
        id: '00000000-0000-4000-8000-000000000001',
        isActive: true,
        isAdmin: false,
      });
      expect(tokens.verify(token).sub).toBe('00000000-0000-4000-8000-000000000001');
      // Kept now: a repeat is answered from the cache, a changed signature or payload is not.
      expect(tokens.verify(token).sub).toBe('00000000-0000-4000-8000-000000000001');
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const flipped = (part: string) =>
        `${part.slice(0, -2)}${part.at(-2) === 'A' ? 'B' : 'A'}${part.at(-1)}`;
      expect(() => tokens.verify(`${header}.${payload}.${flipped(signature)}`)).toThrow();
      expect(() => tokens.verify(`${header}.${flipped(payload)}.${signature}`)).toThrow();
      expect(() => createTokenSigner(randomBytes(32).toString('hex'), 60).verify(token)).toThrow();
      vi.setSystemTime(Date.now() + 61_000);
      expect(() => tokens.verify(token)).toThrow(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers 401 when the account of the token was deleted', async () => {
    const user = await createTestUser(stack);
    await stack.database.db.query('DELETE FROM content.users WHERE id = :id', {
      replacements: { id: user.id },
    });
    await expectUnauthorized(await me(`Bearer ${user.token}`));
  });

  it('answers 403 to a banned account even though its token is unexpired', async () => {
    const user = await createTestUser(stack);
    await stack.database.db.query('UPDATE content.users SET is_active = false WHERE id = :id', {
      replacements: { id: user.id },
    });
    const response = await me(`Bearer ${user.token}`);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('forbidden');
  });

  it('takes administrator rights from the database, not from the token', async () => {
    const user = await createTestUser(stack, { admin: true });
    expect((await api(stack, '/api/v1/users/stats', { headers: user.headers })).status).toBe(200);
    await stack.database.db.query('UPDATE content.users SET is_admin = false WHERE id = :id', {
      replacements: { id: user.id },
    });
    expect((await api(stack, '/api/v1/users/stats', { headers: user.headers })).status).toBe(403);
  });

  it('refuses every earlier token after the secret is changed and the API restarted', async () => {
    const user = await createTestUser(stack);
    const rotated = loadConfig({
      ...stack.config,
      MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
    } as never);
    const server: RunningServer = await listen(
      createContentApp({
        config: rotated,
        logger: stack.logger,
        db: stack.database.db,
        temporal: stack.temporal,
        bus: stack.bus,
      }),
      { host: '127.0.0.1', port: 0, logger: stack.logger, shutdownTimeoutMs: 500 },
    );
    try {
      await expectUnauthorized(await me(`Bearer ${user.token}`, server.url));
      const fresh = await createTokenSigner(rotated.MUSE_JWT_SECRET!, 3600).sign({
        id: user.id,
        isActive: true,
        isAdmin: false,
      });
      expect((await me(`Bearer ${fresh}`, server.url)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('has no signing-key API: /api/v1/jwt-keys answers 404', async () => {
    const admin = await createTestUser(stack, { admin: true });
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await fetch(`${stack.contentUrl}/api/v1/jwt-keys`, { method, headers: admin.headers });
      expect(response.status, method).toBe(404);
    }
    expect(
      (await fetch(`${stack.contentUrl}/api/v1/jwt-keys/1`, { method: 'DELETE', headers: admin.headers }))
        .status,
    ).toBe(404);
  });
});
