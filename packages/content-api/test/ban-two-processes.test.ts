import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { QueryTypes } from 'sequelize';
import { createTokenSigner } from '@muse/content-api';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';
import { randomPhone } from '@muse/test-support/content';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';

/**
 * Bans must be immediate on every API process: whatever a process keeps between requests (an
 * account cache, prepared statements), the request right after an administrator's change on
 * another process must see it.
 */
describe('a ban through one content-api process, honoured by another', { timeout: 180_000 }, () => {
  let database: TestDatabase;
  const secret = randomBytes(32).toString('hex');
  const processes: MuseProcess[] = [];
  let a: string;
  let b: string;

  async function startContentApi(): Promise<string> {
    const server = startMuseServer(['content-api'], {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      MUSE_HOST: '127.0.0.1',
      MUSE_CONTENT_PORT: '0',
      MUSE_JWT_SECRET: secret,
    });
    processes.push(server);
    const [, url] = await server.waitForOutput(/"url":"(http:\/\/[^"]+)"/);
    return url!;
  }

  async function account(admin: boolean): Promise<{ id: string; headers: Record<string, string> }> {
    const [row] = await database.db.query<{ id: string }>(
      'INSERT INTO content.users (phone, is_admin) VALUES (:phone, :admin) RETURNING id',
      { replacements: { phone: randomPhone(), admin }, type: QueryTypes.SELECT },
    );
    const token = await createTokenSigner(secret, 3600).sign({ id: row!.id, isActive: true, isAdmin: admin });
    return { id: row!.id, headers: { authorization: `Bearer ${token}` } };
  }

  const me = (url: string, headers: Record<string, string>) =>
    fetch(`${url}/api/v1/users/me`, { headers }).then((response) => response.status);

  const setActive = (url: string, headers: Record<string, string>, id: string, active: boolean) =>
    fetch(`${url}/api/v1/users/${id}`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ is_active: active }),
    }).then((response) => response.status);

  beforeAll(async () => {
    database = await createTestDatabase();
    [a, b] = await Promise.all([startContentApi(), startContentApi()]);
  });
  afterAll(async () => {
    for (const server of processes) await server.stop(3000);
    await database?.drop();
  });

  it('answers 403 on the second process at the very next request, and 200 again once unbanned', async () => {
    const admin = await account(true);
    const user = await account(false);
    // Both processes have served this account (anything they might keep of it is warm).
    for (let i = 0; i < 3; i++) {
      expect(await me(a, user.headers)).toBe(200);
      expect(await me(b, user.headers)).toBe(200);
    }

    expect(await setActive(a, admin.headers, user.id, false)).toBe(200);
    expect(await me(b, user.headers)).toBe(403);
    expect(await me(a, user.headers)).toBe(403);

    expect(await setActive(a, admin.headers, user.id, true)).toBe(200);
    expect(await me(b, user.headers)).toBe(200);
  });

  it('takes administrator rights away on the second process at the very next request', async () => {
    const admin = await account(true);
    const other = await account(true);
    expect(await setActive(b, other.headers, admin.id, true)).toBe(200);

    expect(
      await fetch(`${a}/api/v1/users/${other.id}/permission`, {
        method: 'PATCH',
        headers: { ...admin.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ is_admin: false }),
      }).then((response) => response.status),
    ).toBe(200);
    expect(await setActive(b, other.headers, admin.id, true)).toBe(403);
  });
});
