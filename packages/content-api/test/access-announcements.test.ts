import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { payloadsOf } from '@muse/core';
import { grantAdministrator } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone, type TestUser } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';

const ACCOUNT_ACCESS = 'muse_account_access';

/**
 * Every write that can make a socket's REST read refuse announces it after commit on the stack's
 * bus, the one the sockets listen on (sockets/hub.ts): nothing in the database does any more
 * (migration 1200), so a write path that forgets to announce fails here. The sockets' side of the
 * same changes is in conversation-sockets.test.ts.
 */
describe('access changes announced by the code that writes them', () => {
  let stack: TestStack;
  let admin: TestUser;
  const subscriptions: Promise<() => Promise<void>>[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await createTestUser(stack, { admin: true });
  });
  afterAll(async () => {
    for (const stop of await Promise.all(subscriptions)) await stop();
    await stack?.stop();
  });

  /** What the bus carries on `channel` from now on, until `stop`. */
  async function hear(channel: string) {
    const heard: Record<string, unknown>[] = [];
    const subscription = stack.bus.subscribe(channel, (message) => {
      heard.push(...(payloadsOf(message) as Record<string, unknown>[]));
    });
    subscriptions.push(subscription);
    await subscription;
    return {
      heard,
      until: (wanted: Record<string, unknown>, count = 1) =>
        vi.waitUntil(
          () =>
            heard.filter((payload) => expect.objectContaining(wanted).asymmetricMatch(payload)).length >=
            count,
          { timeout: 15_000, interval: 20 },
        ),
    };
  }
  const conversation = async (owner: TestUser, visibility: 'public' | 'private' = 'public') => {
    const created = await call(stack.contentUrl, 'POST', '/api/v1/conversations', owner, {
      title: 'Chat',
      visibility,
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  it('no database trigger announces them', async () => {
    const [triggers] = await stack.database.db.query(
      `SELECT tgname FROM pg_trigger WHERE NOT tgisinternal
         AND tgrelid IN ('content.users'::regclass, 'content.conversations'::regclass)`,
    );
    expect(triggers).toEqual([]);
  });

  it('a ban and a re-enabling (PATCH /users/{id}), and not a refused ban', async () => {
    const bob = await createTestUser(stack);
    const account = await hear(ACCOUNT_ACCESS);
    // The last active administrator cannot be banned: rolled back, so nothing is announced.
    const refused = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${admin.id}`, admin, {
      is_active: false,
    });
    expect(refused.status).toBe(409);
    const banned = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${bob.id}`, admin, {
      is_active: false,
    });
    expect(banned.status).toBe(200);
    await account.until({ user_id: bob.id });
    const enabled = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${bob.id}`, admin, {
      is_active: true,
    });
    expect(enabled.status).toBe(200);
    await account.until({ user_id: bob.id }, 2);
    // One announcer sends a channel's payloads in order: the refused ban came first and is absent.
    expect(account.heard).toEqual([{ user_id: bob.id }, { user_id: bob.id }]);
  });

  it('administrator rights and permissions (PATCH /users/{id}/permission)', async () => {
    const carol = await createTestUser(stack);
    const account = await hear(ACCOUNT_ACCESS);
    const revoked = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${carol.id}/permission`, admin, {
      revoke: ['conversation:read:public'],
    });
    expect(revoked.status).toBe(200);
    await account.until({ user_id: carol.id });
    const promoted = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${carol.id}/permission`, admin, {
      is_admin: true,
    });
    expect(promoted.status).toBe(200);
    const demoted = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${carol.id}/permission`, admin, {
      is_admin: false,
    });
    expect(demoted.status).toBe(200);
    await account.until({ user_id: carol.id }, 3);
  });

  it('an administrator made by the bootstrap or `muse-server admin` (grantAdministrator)', async () => {
    const account = await hear(ACCOUNT_ACCESS);
    const phone = randomPhone();
    const first = await grantAdministrator(stack.database.db, phone);
    expect(first.changed).toBe(true);
    await account.until({ user_id: first.id });
  });

  it('a conversation made private, then deleted (PATCH and DELETE /conversations/{id})', async () => {
    const alice = await createTestUser(stack);
    const id = await conversation(alice);
    const channel = await hear(`conversation:${id}`);
    const retitled = await call(stack.contentUrl, 'PATCH', `/api/v1/conversations/${id}`, alice, {
      title: 'Renamed',
    });
    expect(retitled.status).toBe(200);
    const hidden = await call(stack.contentUrl, 'PATCH', `/api/v1/conversations/${id}`, alice, {
      visibility: 'private',
    });
    expect(hidden.status).toBe(200);
    await channel.until({ type: 'access.changed', conversation_id: id });
    const deleted = await call(stack.contentUrl, 'DELETE', `/api/v1/conversations/${id}`, alice);
    expect(deleted.status).toBe(204);
    await channel.until({ type: 'access.changed', conversation_id: id }, 2);
    // A new title changes nobody's access: only the two changes were announced.
    expect(channel.heard).toHaveLength(2);
  });

  it("an account's deletion (DELETE /users/{id}), and with it its conversations'", async () => {
    const dave = await createTestUser(stack);
    const [own, hidden] = [await conversation(dave), await conversation(dave, 'private')];
    const account = await hear(ACCOUNT_ACCESS);
    const channels = [await hear(`conversation:${own}`), await hear(`conversation:${hidden}`)];
    const deleted = await call(stack.contentUrl, 'DELETE', `/api/v1/users/${dave.id}`, admin);
    expect(deleted.status).toBe(204);
    await account.until({ user_id: dave.id });
    await channels[0]!.until({ type: 'access.changed', conversation_id: own });
    await channels[1]!.until({ type: 'access.changed', conversation_id: hidden });
  });
});
