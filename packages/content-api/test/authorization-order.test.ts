import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { api } from '@muse/test-support/login';

/**
 * Spec, Errors: 403 when a non-administrator uses scope=all or calls an administrator endpoint.
 * Access is decided before the request's shape, so the same invalid request answers 403 to a
 * user, 422 to an administrator, and 401 without a token.
 */
describe('authorization before validation', () => {
  let stack: TestStack;
  let admin: TestUser;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    admin = await createTestUser(stack, { admin: true });
    user = await createTestUser(stack);
  });
  afterAll(() => stack.stop());

  const someone = '00000000-0000-4000-8000-00000000abcd';
  const invalid: [method: string, path: string, body?: unknown][] = [
    ['PATCH', '/api/v1/server-config', { default_credit_quota: 'many' }],
    ['PATCH', '/api/v1/payment-api', { currency: 'yuan' }],
    ['POST', '/api/v1/verification-code-providers', { name: 7 }],
    ['PATCH', `/api/v1/verification-code-providers/${someone}`, { priority: 'first' }],
    ['GET', '/api/v1/verification-code-providers?limit=0'],
    ['GET', '/api/v1/verification-code-providers/not-an-id'],
    ['PATCH', `/api/v1/users/${someone}`, { is_active: 'no' }],
    ['PATCH', `/api/v1/users/${someone}/permission`, { grant: 'everything' }],
    ['DELETE', '/api/v1/users/not-an-id'],
    ['GET', '/api/v1/users/not-an-id'],
    ['POST', '/api/v1/generators', { name: 'x', kind: 'sound' }],
    ['PATCH', `/api/v1/generators/${someone}`, { base_cost: -1 }],
    ['POST', '/api/v1/bundles', { name: 3 }],
    ['DELETE', '/api/v1/invite-codes/not-an-id'],
    ['GET', '/api/v1/users?scope=all&limit=0'],
    ['GET', '/api/v1/characters?scope=all&order=name'],
    ['GET', '/api/v1/transaction-logs?scope=all&offset=-1'],
  ];

  it.each(invalid)(
    '%s %s: 403 to a user, 422 to an administrator, 401 without a token',
    async (method, path, body) => {
      const init = { method, ...(body !== undefined ? { body } : {}) };
      const asUser = await api(stack, path, { ...init, headers: user.headers });
      expect(asUser.status).toBe(403);
      expect(asUser.body.code).toBe('forbidden');
      expect((await api(stack, path, { ...init, headers: admin.headers })).status).toBe(422);
      expect((await api(stack, path, init)).status).toBe(401);
    },
  );

  it('a user reading their own account by id is still validated and answered', async () => {
    expect((await api(stack, `/api/v1/users/${user.id}`, { headers: user.headers })).status).toBe(200);
    expect((await api(stack, `/api/v1/users/${user.id}?x=1`, { headers: user.headers })).status).toBe(422);
  });
});
