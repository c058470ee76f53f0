import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone, type TestUser } from '@muse/test-support/content';
import { addWebhookProvider, clientAddress } from '@muse/test-support/login';
import { BUILTIN } from '@muse/test-support/generation';
import { startFakeReplicate, type FakeReplicate } from '@muse/test-support/fakes/replicate';
import type { CodeReceiver } from '@muse/test-support/fakes/code-receivers';
import {
  AuthenticationError,
  GenerationFailedError,
  NotFoundError,
  UpstreamRateLimitedError,
  UpstreamTimeoutError,
  ValidationError,
  createContentClient,
  type ContentClient,
} from '../src/index.ts';

describe('@muse/sdk content client against the real stack', () => {
  let stack: TestStack;
  let admin: TestUser;
  let receiver: CodeReceiver;
  let replicate: FakeReplicate;
  let client: ContentClient;
  const phone = randomPhone();

  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    receiver = await addWebhookProvider(stack, admin);
    replicate = await startFakeReplicate('r8-test');
    // A distinct client address, so the per-address code limits of other tests do not apply.
    client = createContentClient({ baseUrl: stack.contentUrl, headers: clientAddress() });
  });
  afterAll(async () => {
    await receiver?.close();
    await replicate?.close();
    await stack?.stop();
  });

  it('logs in with requestCode and login, and keeps the token', async () => {
    await expect(client.GET('/api/v1/users/me')).rejects.toBeInstanceOf(AuthenticationError);
    await client.auth.requestCode(phone);
    const token = await client.auth.login(phone, receiver.codeFor(phone)!, { source: 'sdk-test' });
    expect(client.token).toBe(token);
    const { data: me } = await client.GET('/api/v1/users/me');
    expect(me.phone).toBe(phone);
  });

  it('resource helpers: create, list every page, get, update, delete', async () => {
    const names = ['R1', 'R2', 'R3'];
    const created = [];
    for (const name of names) created.push(await client.characters.create({ name, tags: ['helpers'] }));
    const listed = [];
    // Pages of one row: list follows them to the end.
    for await (const character of client.characters.list({ scope: 'own', limit: 1, desc: false }))
      if (character.tags.includes('helpers')) listed.push(character.name);
    expect(listed).toEqual(names);
    expect(await client.characters.get(created[0]!.id)).toMatchObject({ name: 'R1' });
    expect(await client.characters.update(created[0]!.id, { name: 'R1b' })).toMatchObject({ name: 'R1b' });
    await client.characters.delete(created[0]!.id);
    await expect(client.characters.get(created[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await client.resource('projects').create({ name: 'P' })).toMatchObject({ name: 'P' });
  });

  it('generator helpers: create, list by kind, delete (deactivate), list the inactive, reactivate', async () => {
    const asAdmin = createContentClient({ baseUrl: stack.contentUrl, token: admin.token });
    const created = await asAdmin.generators.create({
      name: 'Helper texts',
      kind: 'text',
      type: 'builtin',
      base_cost: 1,
    });
    const names = async (query = {}) => {
      const found: string[] = [];
      for await (const generator of asAdmin.generators.list('text', query)) found.push(generator.name);
      return found;
    };
    expect(await names()).toContain('Helper texts');
    await asAdmin.generators.delete(created.id);
    expect(await names()).not.toContain('Helper texts');
    expect(await names({ include_inactive: true })).toContain('Helper texts');
    expect(await asAdmin.generators.get(created.id)).toMatchObject({ is_active: false });
    expect(await asAdmin.generators.update(created.id, { is_active: true })).toMatchObject({
      is_active: true,
    });
  });

  it('creates a resource and reads it back, typed by the document', async () => {
    const { data: created, response } = await client.POST('/api/v1/characters', {
      body: { name: 'Ada', persona: 'a patient tutor', tags: ['math'] },
    });
    expect(response.status).toBe(201);
    const { data: read } = await client.GET('/api/v1/characters/{id}', {
      params: { path: { id: created.id } },
    });
    expect(read).toMatchObject({ id: created.id, name: 'Ada', tags: ['math'] });
  });

  it('paginates 250 rows with offset/limit pages', async () => {
    let requests = 0;
    const owner = createContentClient({
      baseUrl: stack.contentUrl,
      token: (await createTestUser(stack)).token,
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    });
    const created: string[] = [];
    for (let batch = 0; batch < 25; batch++) {
      const rows = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          owner.POST('/api/v1/projects', { body: { name: `project ${batch * 10 + i}` } }),
        ),
      );
      created.push(...rows.map((row) => row.data.id));
    }
    const seen: string[] = [];
    requests = 0;
    for await (const project of owner.paginate('/api/v1/projects', { params: { query: { limit: 100 } } }))
      seen.push(project.id);
    expect(seen).toHaveLength(250);
    expect(new Set(seen)).toEqual(new Set(created));
    expect(requests).toBe(3); // 100 + 100 + 50: the short page ends the walk
  });

  it('submits a generation, waits for its file and downloads it as a stream', async () => {
    const fileIds = await client.generations.create('images', {
      generator_id: BUILTIN.image,
      prompt: 'a red fox',
      count: 1,
    });
    expect(fileIds).toHaveLength(1);
    const statuses: string[] = [];
    const file = await client.files.waitFor(fileIds[0]!, {
      pollInterval: 100,
      onUpdate: (update) => statuses.push(update.status),
    });
    expect(file.status).toBe('completed');
    expect(statuses.at(-1)).toBe('completed');
    const stream = await client.files.download(file.id);
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    expect(bytes.length).toBe(file.size);
    expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]); // PNG
  });

  it('throws GenerationFailedError with the file error_message when a generation fails', async () => {
    const adminClient = createContentClient({ baseUrl: stack.contentUrl, token: admin.token });
    const { data: generator } = await adminClient.POST('/api/v1/generators', {
      body: {
        name: `replicate-${Date.now()}`,
        kind: 'video',
        type: 'replicate',
        base_cost: 1,
        config: { base_url: replicate.url, version: 'abc123', poll_interval_seconds: 0.3, max_attempts: 1 },
        secrets: { api_key: 'r8-test' },
      },
    });
    replicate.outcome = 'failed';
    replicate.processingMs = 200;
    const [fileId] = await client.generations.create('videos', {
      generator_id: generator.id,
      prompt: 'waves',
    });
    const failure = await client.files
      .waitFor(fileId!, { pollInterval: 100 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GenerationFailedError);
    expect((failure as GenerationFailedError).fileId).toBe(fileId);
    expect((failure as GenerationFailedError).errorMessage).toMatch(
      /^The generation failed: The upstream prediction failed/,
    ); // users see a short reason; the upstream's text goes to the log;
  });

  it('create with wait answers the finished records, or UpstreamTimeoutError / UpstreamRateLimitedError (retryAfter)', async () => {
    const done = await client.generations.create(
      'images',
      { generator_id: BUILTIN.image, prompt: 'a waited fox' },
      { wait: 30 },
    );
    expect(done.status).toBe('completed');
    expect(done.files?.[0]).toMatchObject({ id: done.file_ids[0], status: 'completed' });

    const adminClient = createContentClient({ baseUrl: stack.contentUrl, token: admin.token });
    const upstream = async () =>
      (
        await adminClient.POST('/api/v1/generators', {
          body: {
            name: `replicate-wait-${crypto.randomUUID()}`,
            kind: 'video',
            type: 'replicate',
            base_cost: 1,
            config: {
              base_url: replicate.url,
              version: 'abc123',
              max_attempts: 1,
              request_timeout_seconds: 1,
            },
            secrets: { api_key: 'r8-test' },
          },
        })
      ).data.id;
    const timedOut = await upstream();
    replicate.script('hang');
    const timeout = await client.generations
      .create('videos', { generator_id: timedOut, prompt: 'waves' }, { wait: true, maxRetries: 0 })
      .catch((error: unknown) => error);
    expect(timeout).toBeInstanceOf(UpstreamTimeoutError);
    expect((timeout as UpstreamTimeoutError).status).toBe(504);

    const limited = await upstream();
    replicate.script({ rateLimit: { retryAfterSeconds: 30 } });
    const refused = await client.generations
      .create('videos', { generator_id: limited, prompt: 'waves' }, { wait: true, maxRetries: 0 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpstreamRateLimitedError);
    expect((refused as UpstreamRateLimitedError).retryAfter).toBeGreaterThan(0);
    // While the upstream asks to be left alone, a plain submit is refused the same way, unpaid.
    const again = await client.generations
      .create('videos', { generator_id: limited, prompt: 'waves' }, { maxRetries: 0 })
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(UpstreamRateLimitedError);
  });

  it('answers typed errors with status, code, message, details and the request id', async () => {
    const missing = await client
      .GET('/api/v1/files/{file_id}', { params: { path: { file_id: crypto.randomUUID() } } })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    // The server echoes (and logs) the id the SDK sends: a generated UUID, or the caller's own.
    expect((missing as NotFoundError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    const named = await client
      .GET('/api/v1/files/{file_id}', {
        params: { path: { file_id: crypto.randomUUID() } },
        headers: { 'X-Request-Id': 'sdk-test.42' },
      })
      .catch((error: unknown) => error);
    expect(named).toMatchObject({ status: 404, requestId: 'sdk-test.42' });
    const invalid = await client
      .GET('/api/v1/characters', { params: { query: { limit: 0 } } })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ status: 422, code: 'validation_error' });
    expect((invalid as ValidationError).details).toBeDefined();
  });
});
