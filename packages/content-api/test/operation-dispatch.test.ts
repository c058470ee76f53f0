import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchOperations, Routes } from '../src/http/routes.ts';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { api } from '@muse/test-support/login';

/**
 * Handlers are called from the operation request validation matched (src/http/routes.ts), not
 * found by routers: what routers gave a request (its route name in metrics, its path values)
 * and what they served beside the operations (payment notifications, the reference pages) stay.
 */
describe('operation dispatch', () => {
  let stack: TestStack;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    user = await createTestUser(stack);
  });
  afterAll(() => stack.stop());

  it('names each request by its route in the metrics, as a router did', async () => {
    const created = await api(stack, '/api/v1/characters', {
      method: 'POST',
      headers: user.headers,
      body: { name: 'Dispatch' },
    });
    expect(created.status).toBe(201);
    const read = await api(stack, `/api/v1/characters/${created.body.id}`, { headers: user.headers });
    expect(read.body.id).toBe(created.body.id);
    expect((await api(stack, `/api/v1/users/${user.id}`, { headers: user.headers })).status).toBe(200);
    const metrics = await (await fetch(`${stack.contentMetricsUrl}/metrics`)).text();
    for (const route of ['/api/v1/characters', '/api/v1/characters/:id', '/api/v1/users/:id'])
      expect(metrics).toContain(`route="${route}"`);
  });

  it('validates a repeated list query the same way every time (accepted ones are remembered)', async () => {
    const lister = await createTestUser(stack);
    for (const name of ['Listed 1', 'Listed 2', 'Listed 3'])
      await api(stack, '/api/v1/characters', { method: 'POST', headers: lister.headers, body: { name } });
    for (let i = 0; i < 2; i++) {
      const two = await api(stack, '/api/v1/characters?limit=2&desc=false', { headers: lister.headers });
      expect(two.status).toBe(200);
      expect(two.body.map((row: { name: string }) => row.name)).toEqual(['Listed 1', 'Listed 2']);
      const three = await api(stack, '/api/v1/characters?limit=3&desc=false', { headers: lister.headers });
      expect(three.body).toHaveLength(3);
      for (const refused of ['limit=0', 'limit=two', 'limit=2&unknown=1', 'desc=maybe']) {
        const answer = await api(stack, `/api/v1/characters?${refused}`, { headers: lister.headers });
        expect(answer.status).toBe(422);
      }
    }
  });

  it('still serves the payment notifications (before the JSON parser) and the reference pages', async () => {
    // A development notification without its query is refused by the payments code itself.
    expect((await fetch(`${stack.contentUrl}/api/v1/payment-notifications/development`)).status).toBe(400);
    const docs = await fetch(`${stack.contentUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect((await fetch(`${stack.contentUrl}/docs/init.js`)).status).toBe(200);
  });

  it("tags each answer with Express's weak ETag and answers 304 to it", async () => {
    const url = `${stack.contentUrl}/api/v1/users/me`;
    const answer = await fetch(url, { headers: user.headers });
    const body = Buffer.from(await answer.arrayBuffer());
    const sha1 = createHash('sha1').update(body).digest('base64').substring(0, 27);
    expect(answer.headers.get('etag')).toBe(`W/"${body.length.toString(16)}-${sha1}"`);
    // fetch would add `Cache-Control: no-cache` to a conditional request, which asks for the full answer.
    const again = await fetch(url, {
      headers: {
        ...user.headers,
        'If-None-Match': answer.headers.get('etag')!,
        'Cache-Control': 'max-age=0',
      },
    });
    expect(again.status).toBe(304);
  });

  it('refuses at start-up a handler of an operation the document lacks, or two of one operation', () => {
    const document = { paths: { '/api/v1/things': { get: {} } } };
    const handler = () => undefined;
    expect(() =>
      dispatchOperations(document, [new Routes().add('get', '/api/v1/things', handler)]),
    ).not.toThrow();
    expect(() => dispatchOperations(document, [new Routes().add('post', '/api/v1/things', handler)])).toThrow(
      /not in the OpenAPI document/,
    );
    const twice = () => new Routes().add('get', '/api/v1/things', handler);
    expect(() => dispatchOperations(document, [twice(), twice()])).toThrow(/two handlers/);
  });
});
