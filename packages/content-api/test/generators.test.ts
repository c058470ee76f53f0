import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '@muse/core';
import { upsertGenerator } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { BUILTIN } from '@muse/test-support/generation';

/** Response bodies are asserted field by field; their shapes are the OpenAPI document's. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('generators', () => {
  let stack: TestStack;
  let admin: TestUser;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    admin = await createTestUser(stack, { admin: true });
    user = await createTestUser(stack);
  });
  afterAll(() => stack.stop());

  const call = async (method: string, path: string, caller: TestUser | undefined, body?: unknown) => {
    const response = await fetch(`${stack.contentUrl}${path}`, {
      method,
      headers: { ...caller?.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return {
      status: response.status,
      body: (response.status === 204 ? undefined : await response.json()) as Json,
    };
  };

  it('lists the seeded built-in generators per kind with the spec fields', async () => {
    for (const [path, id] of [
      ['images', BUILTIN.image],
      ['videos', BUILTIN.video],
      ['texts', BUILTIN.text],
    ] as const) {
      const { status, body } = await call('GET', `/api/v1/generators/${path}`, user);
      expect(status).toBe(200);
      expect(body).toContainEqual(
        expect.objectContaining({
          id,
          type: 'builtin',
          is_active: true,
          base_cost: expect.any(Number),
          name: expect.any(String),
          description: expect.any(String),
        }),
      );
      expect(body[0]).not.toHaveProperty('config');
    }
    expect((await call('GET', '/api/v1/generators/images', undefined)).status).toBe(401);
  });

  it('lists generators with the shared pagination and sorting', async () => {
    const names: string[] = [];
    for (const n of [1, 2, 3]) {
      const created = await call('POST', '/api/v1/generators', admin, {
        name: `paged ${n} ${Date.now()}`,
        kind: 'text',
        type: 'builtin',
        base_cost: 1,
      });
      expect(created.status).toBe(201);
      names.push(created.body.name);
    }
    const list = async (query: string) => {
      const { status, body } = await call('GET', `/api/v1/generators/texts?${query}`, user);
      expect(status).toBe(200);
      return (body as { name: string }[]).map(({ name }) => name);
    };
    const oldestFirst = await list('desc=false&order=created_at&limit=100');
    expect(oldestFirst.filter((name) => names.includes(name))).toEqual(names);
    expect((await list('limit=100')).filter((name) => names.includes(name))).toEqual([...names].reverse());
    expect(await list('desc=false&offset=1&limit=2')).toEqual(oldestFirst.slice(1, 3));
    expect(await list(`offset=${oldestFirst.length}`)).toEqual([]);
    expect((await call('GET', '/api/v1/generators/texts?limit=0', user)).status).toBe(422);
  });

  it('serves the parameter schema: 200, unknown id 404, malformed id 422', async () => {
    const ok = await call('GET', `/api/v1/generations/schemas?generator_id=${BUILTIN.video}`, user);
    expect(ok.status).toBe(200);
    expect(ok.body.properties).toHaveProperty('duration');
    expect(ok.body.properties).toHaveProperty('reference_file_ids');
    expect(
      (
        await call(
          'GET',
          '/api/v1/generations/schemas?generator_id=3f2c4a9e-1111-4222-8333-944455556666',
          user,
        )
      ).status,
    ).toBe(404);
    expect((await call('GET', '/api/v1/generations/schemas?generator_id=zzz', user)).status).toBe(422);
  });

  it('lets administrators create, change and deactivate generators, never returning secrets', async () => {
    const spec = {
      name: 'Upstream images',
      kind: 'image',
      type: 'openai',
      base_cost: 5,
      config: { base_url: 'http://127.0.0.1:9', model: 'm' },
      secrets: { api_key: 'sk-secret' },
    };
    expect((await call('POST', '/api/v1/generators', user, spec)).status).toBe(403);
    const created = await call('POST', '/api/v1/generators', admin, spec);
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain('sk-secret');
    expect(created.body.secret_names).toEqual(['api_key']);
    expect((await call('POST', '/api/v1/generators', admin, spec)).status).toBe(409);

    const id = created.body.id as string;
    const patched = await call('PATCH', `/api/v1/generators/${id}`, admin, {
      base_cost: 7,
      description: 'changed',
    });
    expect(patched).toMatchObject({
      status: 200,
      body: { base_cost: 7, description: 'changed', secret_names: ['api_key'] },
    });
    expect((await call('PATCH', `/api/v1/generators/${id}`, user, { base_cost: 1 })).status).toBe(403);
    expect((await call('GET', `/api/v1/generators/${id}`, user)).body).not.toHaveProperty('config');

    expect((await call('DELETE', `/api/v1/generators/${id}`, admin)).status).toBe(204);
    const listed = await call('GET', '/api/v1/generators/images', user);
    expect(listed.body.map((g: { id: string }) => g.id)).not.toContain(id);
    expect((await call('GET', `/api/v1/generators/${id}`, user)).status).toBe(404);
    expect((await call('GET', `/api/v1/generators/${id}`, admin)).body.is_active).toBe(false);
    expect(
      (
        await call('PATCH', '/api/v1/generators/3f2c4a9e-1111-4222-8333-944455556666', admin, {
          base_cost: 1,
        })
      ).status,
    ).toBe(404);
  });

  it('refuses generators the platform could not run (422 naming the field)', async () => {
    const noUrl = await call('POST', '/api/v1/generators', admin, {
      name: 'x',
      kind: 'video',
      type: 'replicate',
      base_cost: 1,
    });
    expect(noUrl.status).toBe(422);
    expect(noUrl.body.details).toContainEqual(expect.objectContaining({ path: '/config/base_url' }));
    const openaiVideo = await call('POST', '/api/v1/generators', admin, {
      name: 'y',
      kind: 'video',
      type: 'openai',
      base_cost: 1,
      config: { base_url: 'http://x' },
    });
    expect(openaiVideo.body.details).toContainEqual(expect.objectContaining({ path: '/type' }));
    const badSchema = await call('POST', '/api/v1/generators', admin, {
      name: 'z',
      kind: 'text',
      type: 'builtin',
      base_cost: 1,
      parameters_schema: { type: 'nonsense' },
    });
    expect(badSchema.status).toBe(422);
    expect(badSchema.body.details).toContainEqual(expect.objectContaining({ path: '/parameters_schema' }));
  });

  it('upsertGenerator (the bootstrap file) is idempotent and keeps stored secrets', async () => {
    const db = stack.database.db;
    const secrets = createSecretBox(stack.config.MUSE_SECRETS_KEY);
    const spec = {
      name: 'Bootstrap texts',
      kind: 'text' as const,
      type: 'builtin',
      base_cost: 2,
      secrets: { api_key: 'k' },
    };
    const first = await upsertGenerator(db, secrets, spec);
    const second = await upsertGenerator(db, secrets, { ...spec, secrets: {} });
    expect(second.id).toBe(first.id);
    expect(second.updated_at).toEqual(first.updated_at);
    expect(secrets.openValues(second.secrets)).toEqual({ api_key: 'k' });
    const changed = await upsertGenerator(db, secrets, { ...spec, base_cost: 3 });
    expect(changed.base_cost).toBe(3);
  });
});
