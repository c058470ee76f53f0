import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from './support/stack.ts';
import { createTestUser, type TestUser } from './support/content.ts';
import { makeOrganization, makeUser, type TestUser as ChatUser } from '@muse/test-support/chat';

/**
 * What the APIs meet after a Postgres failover: pooled connections still open to the old primary,
 * now read-only (SQLSTATE 25006). Here the test database refuses writes for a while — new sessions
 * through its default, and the pooled connection (the stack's pool holds one) as a session of a
 * demoted primary. Writes answer 503 with Retry-After meanwhile, reads still serve, and once the
 * database takes writes again the same processes write again: the connection that met the
 * read-only server was dropped, not handed to the next request.
 */
describe('a read-only database', () => {
  let stack: TestStack;
  let user: TestUser;
  let chatUser: ChatUser;
  let admin: pg.Client;
  let database: string;

  beforeAll(async () => {
    stack = await startTestStack();
    user = await createTestUser(stack);
    await makeOrganization(stack);
    chatUser = await makeUser(stack);
    admin = new pg.Client({ connectionString: stack.database.url });
    await admin.connect();
    database = new URL(stack.database.url).pathname.slice(1);
  });
  afterAll(async () => {
    await admin?.end();
    await stack?.stop();
  });

  const chatAuth = () => `Basic ${Buffer.from(`${chatUser.email}:${chatUser.apiKey}`).toString('base64')}`;
  const createCharacter = () =>
    fetch(`${stack.contentUrl}/api/v1/characters`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Read-only probe' }),
    });
  const sendMessage = () =>
    fetch(`${stack.chatUrl}/api/v1/messages`, {
      method: 'POST',
      headers: { authorization: chatAuth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ type: 'private', to: JSON.stringify([chatUser.id]), content: 'probe' }),
    });
  const readProfile = () => fetch(`${stack.contentUrl}/api/v1/users/me`, { headers: user.headers });

  it('answers writes 503 with Retry-After while it is read-only, then writes again without a restart', async () => {
    expect((await createCharacter()).status).toBe(201);
    expect((await sendMessage()).status).toBe(200);

    await admin.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    await stack.database.db.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
    const refused = async () => {
      for (const write of [createCharacter, sendMessage]) {
        const answer = await write();
        expect(answer.status, await answer.text()).toBe(503);
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    };
    await refused();
    // The read serves, on a new connection of the read-only database: the writes after it drop
    // that one too, as they would every connection to a demoted primary.
    expect((await readProfile()).status).toBe(200);
    await refused();

    await admin.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
    expect((await createCharacter()).status).toBe(201);
    expect((await sendMessage()).status).toBe(200);
    expect((await readProfile()).status).toBe(200);
  }, 120_000);
});
