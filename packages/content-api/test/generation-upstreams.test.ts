import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { balanceOf, createGenerator, ledgerOf, submit, waitForFile } from '@muse/test-support/generation';
import { startFakeOpenAi } from '@muse/test-support/fakes/openai';
import { startFakeReplicate, type FakeReplicate } from '@muse/test-support/fakes/replicate';
import { TINY_GIF, TINY_PNG, type FakeServer } from '@muse/test-support/fakes/server';

describe('generation through upstream adapters (fake upstream servers over HTTP)', () => {
  let stack: TestStack;
  let admin: TestUser;
  let openai: FakeServer;
  let replicate: FakeReplicate;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1' });
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    openai = await startFakeOpenAi('sk-test');
    replicate = await startFakeReplicate('r8-test');
  });
  afterAll(async () => {
    await openai.close();
    await replicate.close();
    await stack.stop();
  });

  const openaiGenerator = (kind: 'image' | 'text', config: Record<string, unknown> = {}) =>
    createGenerator(stack, admin, {
      kind,
      type: 'openai',
      base_cost: 3,
      config: {
        base_url: openai.url,
        model: 'fake-model',
        max_attempts: 2,
        request_timeout_seconds: 5,
        ...config,
      },
      secrets: { api_key: 'sk-test' },
    });

  /** Submits with a fresh user holding `balance` and waits for the first file's end. */
  async function run(
    kind: 'images' | 'videos' | 'texts',
    generatorId: string,
    extra: Record<string, unknown> = {},
    balance = 10,
  ) {
    const user = await createTestUser(stack, { balance });
    const answer = await submit(stack, user, kind, {
      generator_id: generatorId,
      prompt: 'a lighthouse',
      ...extra,
    });
    expect(answer.status).toBe(202);
    const files = await Promise.all(answer.body.file_ids.map((id) => waitForFile(stack, user, id, 45_000)));
    return { user, files, file: files[0]! };
  }

  it('stores OpenAI base64 images, sending the API key and model the upstream expects', async () => {
    const id = await openaiGenerator('image');
    openai.requests.length = 0;
    const { user, files } = await run('images', id, { count: 2 });
    expect(files.map((f) => f.status)).toEqual(['completed', 'completed']);
    const content = Buffer.from(await (await fetch(files[0]!.download_url!)).arrayBuffer());
    expect(content).toEqual(TINY_PNG);
    const request = openai.requests.find((r) => r.path === '/v1/images/generations')!;
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(JSON.parse(request.body)).toMatchObject({
      model: 'fake-model',
      prompt: 'a lighthouse',
      n: 2,
      size: '1024x1024',
    });
    expect(await balanceOf(stack, user.id)).toBe(7); // base_cost per task, whatever the count
  });

  it('downloads OpenAI images given as URLs', async () => {
    const id = await openaiGenerator('image', { response_format: 'url' });
    const { file } = await run('images', id);
    expect(file.status).toBe('completed');
    expect(Buffer.from(await (await fetch(file.download_url!)).arrayBuffer())).toEqual(TINY_PNG);
  });

  it('fails a result larger than max_result_bytes for good (no retry) and refunds it', async () => {
    const id = await openaiGenerator('image', { response_format: 'url', max_result_bytes: 16 });
    const before = openai.requests.length;
    const { user, file } = await run('images', id);
    expect(file.status).toBe('failed');
    expect(file.error_message).toMatch(/larger than 16 bytes/);
    expect(openai.requests.filter((r, i) => i >= before && r.path !== '/v1/images/generations').length).toBe(
      1,
    );
    expect((await ledgerOf(stack, user.id)).map((e) => e.kind)).toEqual(['charge', 'refund']);
  });

  it('generates text through chat completions', async () => {
    const id = await openaiGenerator('text');
    const { file } = await run('texts', id);
    expect(file.status).toBe('completed');
    expect(await (await fetch(file.download_url!)).text()).toBe('Echo: a lighthouse');
  });

  it('retries a transient 500 and completes', async () => {
    const id = await openaiGenerator('text');
    openai.script('fail');
    const { user, file } = await run('texts', id);
    expect(file.status).toBe('completed');
    expect((await ledgerOf(stack, user.id)).map((e) => e.kind)).toEqual(['charge']);
  });

  it('fails after retries of an upstream failure, with error_message, and refunds exactly once', async () => {
    const id = await openaiGenerator('text');
    openai.script('fail', 'fail');
    const before = openai.requests.length;
    const { user, file } = await run('texts', id, {}, 7);
    expect(file.status).toBe('failed');
    expect(file.error_message).toMatch(/unavailable.*500/);
    expect(file.download_url).toBeNull();
    expect(openai.requests.length - before).toBe(2); // max_attempts
    expect(await balanceOf(stack, user.id)).toBe(7);
    const entries = await ledgerOf(stack, user.id);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['charge', -3],
      ['refund', 3],
    ]);
  });

  it('fails at once, without retrying, when the upstream rejects the task (400); its text stays in the log', async () => {
    const id = await openaiGenerator('text');
    openai.script('reject');
    const before = openai.requests.length;
    const { user, file } = await run('texts', id);
    expect(file.status).toBe('failed');
    expect(file.error_message).toBe('The generation failed: The upstream rejected the task (400)');
    expect(openai.requests.length - before).toBe(1);
    expect(await balanceOf(stack, user.id)).toBe(10);
  });

  it('honours Retry-After of a 429 and completes when the upstream lets the task through', async () => {
    const id = await openaiGenerator('text');
    openai.script({ rateLimit: { retryAfterSeconds: 1 } });
    const { file } = await run('texts', id);
    expect(file.status).toBe('completed');
    const [limited, accepted] = openai.requests.filter((r) => r.path === '/v1/chat/completions').slice(-2);
    expect(accepted!.at - limited!.at).toBeGreaterThanOrEqual(950); // Retry-After: 1
  });

  it('ends as failed saying "rate limited" when the upstream keeps answering 429', async () => {
    const id = await openaiGenerator('text');
    openai.script({ rateLimit: { retryAfterSeconds: 1 } }, { rateLimit: { retryAfterSeconds: 1 } });
    const { user, file } = await run('texts', id);
    expect(file.status).toBe('failed');
    expect(file.error_message).toMatch(/rate limited/);
    expect(await balanceOf(stack, user.id)).toBe(10);
  });

  it('ends as failed saying "timed out" when the upstream hangs', async () => {
    const id = await openaiGenerator('text', { request_timeout_seconds: 1, max_attempts: 2 });
    openai.script('hang', 'hang');
    const { user, file } = await run('texts', id);
    expect(file.status).toBe('failed');
    expect(file.error_message).toMatch(/timed out/);
    expect(await balanceOf(stack, user.id)).toBe(10);
  });

  const replicateGenerator = (config: Record<string, unknown> = {}) =>
    createGenerator(stack, admin, {
      kind: 'video',
      type: 'replicate',
      base_cost: 2,
      config: {
        base_url: replicate.url,
        version: 'abc123',
        poll_interval_seconds: 0.3,
        max_attempts: 2,
        ...config,
      },
      secrets: { api_key: 'r8-test' },
    });

  it('submits a prediction, polls it to success and stores the output video', async () => {
    const id = await replicateGenerator();
    replicate.outcome = 'succeeded';
    replicate.processingMs = 1000;
    const before = replicate.requests.length;
    const { user, file } = await run('videos', id, { duration: 10 });
    expect(file).toMatchObject({ status: 'completed', content_type: 'image/gif' });
    expect(Buffer.from(await (await fetch(file.download_url!)).arrayBuffer())).toEqual(TINY_GIF);
    const requests = replicate.requests.slice(before);
    expect(JSON.parse(requests[0]!.body)).toEqual({
      version: 'abc123',
      input: { prompt: 'a lighthouse', duration: 10 },
    });
    expect(
      requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/predictions/')).length,
    ).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(stack, user.id)).toBe(8); // base_cost per task, whatever the duration
  });

  it('fails with a short reason (the upstream text stays in the log) and refunds when the prediction fails', async () => {
    const id = await replicateGenerator();
    replicate.outcome = 'failed';
    replicate.processingMs = 300;
    const { user, file } = await run('videos', id);
    expect(file.status).toBe('failed');
    expect(file.error_message).toBe('The generation failed: The upstream prediction failed');
    expect(await balanceOf(stack, user.id)).toBe(10);
    expect((await ledgerOf(stack, user.id)).map((e) => e.kind)).toEqual(['charge', 'refund']);
  });

  it('fails saying "timed out" when the prediction outlives timeout_seconds', async () => {
    const id = await replicateGenerator({ timeout_seconds: 2 });
    replicate.outcome = 'never';
    const { user, file } = await run('videos', id);
    expect(file.status).toBe('failed');
    expect(file.error_message).toMatch(/timed out.*2 s/);
    expect(await balanceOf(stack, user.id)).toBe(10);
  });
});
