import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer, type RecordedRequest } from '@muse/test-support/fakes/server';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import {
  ConnectionError,
  FileWaitTimeoutError,
  SDK_VERSION,
  RateLimitError,
  ServerError,
  TimeoutError,
  createContentClient,
  type ContentClient,
} from '../src/index.ts';
import { until } from './support.ts';

type Answer = (request: RecordedRequest, res: ServerResponse) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const error = (status: number, headers: Record<string, string> = {}) =>
  json(status, { code: `status_${status}`, message: `answered ${status}` }, headers);
/** Headers and the first half of a JSON body, then nothing until the server closes. */
const stallMidBody: Answer = (_request, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '40' });
  res.write('{"token": "abcdefghij');
};
const dropConnection: Answer = (_request, res) => res.socket?.destroy();

const FILE_ID = '11111111-1111-4111-8111-111111111111';

describe('@muse/sdk retries, timeouts and aborts (local fake server)', () => {
  let fake: FakeServer;
  let answers: Answer[];
  let client: ContentClient;
  const hits = () => fake.requests.length;

  beforeAll(async () => {
    fake = await startFakeServer((request, res) => {
      const answer = answers.shift() ?? json(200, { token: 'tok' });
      answer(request, res);
    });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    answers = [];
    // Short backoffs keep the file fast; the delays themselves are covered by retry-policy.test.ts.
    client = createContentClient({ baseUrl: fake.url, retryBaseDelay: 5, timeout: 2_000 });
  });

  const login = (c = client, options = {}) => c.auth.login('13800138000', '123456', options);

  it.each([
    ['429 with Retry-After seconds', error(429, { 'retry-after': '0' })],
    ['529 without Retry-After', error(529)],
    ['503 with Retry-After as an HTTP date', error(503, { 'retry-after': new Date(0).toUTCString() })],
    ['500', error(500)],
    ['502', error(502)],
    ['504', error(504)],
    ['408', error(408)],
    ['a dropped connection', dropConnection],
  ])('retries after %s and succeeds', async (_name, answer) => {
    answers.push(answer);
    expect(await login()).toBe('tok');
    expect(hits()).toBe(2);
  });

  it('gives up after maxRetries (default 2) with the typed error of the last answer', async () => {
    answers.push(error(503), error(503), error(503), error(503));
    const failure = await login().catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(ServerError);
    expect(failure).toMatchObject({ status: 503, code: 'status_503', message: 'answered 503' });
    expect(hits()).toBe(3);
  });

  it('does not retry an answer that another try cannot change', async () => {
    answers.push(error(400), error(404), error(409), error(422));
    for (const status of [400, 404, 409, 422]) await expect(login()).rejects.toMatchObject({ status });
    expect(hits()).toBe(4);
  });

  it('throws at once when Retry-After asks for longer than maxRetryAfter', async () => {
    answers.push(error(429, { 'retry-after': '3600' }));
    const failure = await login().catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).retryAfter).toBe(3600);
    expect(hits()).toBe(1);
  });

  it('sends the same X-Request-Id on every try of a call and names it in the error', async () => {
    answers.push(error(503), error(503), error(503));
    const failure = (await login().catch((caught: unknown) => caught)) as ServerError;
    const ids = fake.requests.map((request) => request.headers['x-request-id']);
    expect(new Set(ids).size).toBe(1);
    expect(failure.requestId).toBe(ids[0]);
    answers.push(error(404, { 'x-request-id': 'from-the-server' }));
    await expect(login()).rejects.toMatchObject({ requestId: 'from-the-server' });
  });

  it('keeps one Idempotency-Key across the retries of a generation submit, a new one per submit', async () => {
    const accepted = json(202, { file_ids: [FILE_ID], status: 'pending' });
    answers.push(error(503), dropConnection, accepted, accepted);
    const body = { generator_id: FILE_ID, prompt: 'a fox' };
    expect(await client.generations.create('images', body)).toEqual([FILE_ID]);
    expect(await client.generations.create('images', body, { idempotencyKey: 'mine' })).toEqual([FILE_ID]);
    const keys = fake.requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/\S/);
    expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
    expect(keys[3]).toBe('mine');
    expect(fake.requests.every((request) => JSON.parse(request.body).prompt === 'a fox')).toBe(true);
  });

  it('times out a body that stalls mid-way, then retries', async () => {
    const quick = createContentClient({ baseUrl: fake.url, retryBaseDelay: 5, timeout: 300 });
    answers.push(stallMidBody);
    expect(await login(quick)).toBe('tok');
    expect(hits()).toBe(2);
    answers.push(stallMidBody, stallMidBody);
    const failure = await login(quick, { maxRetries: 1 }).catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(hits()).toBe(4);
  });

  it('keeps the timeout over a streamed download until its last byte', async () => {
    const quick = createContentClient({ baseUrl: fake.url, retryBaseDelay: 5, timeout: 300, maxRetries: 0 });
    const record = {
      id: FILE_ID,
      status: 'completed',
      download_url: `/api/v1/files/${FILE_ID}/content?expires=1&signature=s`,
    };
    answers.push(json(200, record), (_request, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '8' });
      res.write(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    });
    const stream = await quick.files.download(FILE_ID);
    const reading = new Response(stream).arrayBuffer();
    await expect(reading).rejects.toBeInstanceOf(TimeoutError);
    expect(fake.requests[1]!.path).toBe(`/api/v1/files/${FILE_ID}/content?expires=1&signature=s`);
    expect(fake.requests[1]!.headers.authorization).toBeUndefined();
  });

  it('reads a 2xx answer the way parseAs asks', async () => {
    const text = await client.GET('/api/v1/users/me', { parseAs: 'text' });
    expect(text.data).toBe('{"token":"tok"}');
    const bytes = await client.GET('/api/v1/users/me', { parseAs: 'arrayBuffer' });
    expect(new TextDecoder().decode(bytes.data)).toBe('{"token":"tok"}');
    const blob = await client.GET('/api/v1/users/me', { parseAs: 'blob' });
    expect(await blob.data.text()).toBe('{"token":"tok"}');
    const stream = await client.GET('/api/v1/users/me', { parseAs: 'stream' });
    expect(await new Response(stream.data).json()).toEqual({ token: 'tok' });
    const json = await client.GET('/api/v1/users/me');
    expect(json.data).toEqual({ token: 'tok' });
  });

  it('an abort cancels the backoff sleep at once', async () => {
    answers.push(error(503, { 'retry-after': '25' }));
    const controller = new AbortController();
    const call = login(client, { signal: controller.signal });
    await until(() => hits() === 1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(hits()).toBe(1);
  }, 10_000);

  it('an abort ends a call whose answer stalls, without retrying', async () => {
    answers.push(stallMidBody);
    const controller = new AbortController();
    const call = login(client, { signal: controller.signal });
    await until(() => hits() === 1);
    controller.abort(new Error('changed my mind'));
    await expect(call).rejects.toThrow('changed my mind');
    expect(hits()).toBe(1);
  });

  it('calls the hooks around every try, and sends a User-Agent', async () => {
    const seen: string[] = [];
    const hooked = createContentClient({
      baseUrl: fake.url,
      retryBaseDelay: 5,
      hooks: {
        onRequest: ({ method, attempt, headers }) => {
          headers.set('x-traced', 'yes');
          seen.push(`request ${method} ${attempt}`);
        },
        onResponse: ({ response, attempt, durationMs }) =>
          seen.push(`response ${response.status} ${attempt} ${durationMs >= 0}`),
        onRetry: ({ error: failure, attempt, delayMs }) =>
          seen.push(`retry ${(failure as { status: number }).status} ${attempt} ${delayMs >= 0}`),
      },
    });
    answers.push(error(503));
    expect(await login(hooked)).toBe('tok');
    expect(seen).toEqual([
      'request POST 0',
      'response 503 0 true',
      'retry 503 0 true',
      'request POST 1',
      'response 200 1 true',
    ]);
    expect(fake.requests.map((request) => request.headers['x-traced'])).toEqual(['yes', 'yes']);
    expect(fake.requests[0]!.headers['user-agent']).toBe(`muse-sdk/${SDK_VERSION}`);
    const named = createContentClient({ baseUrl: fake.url, userAgent: 'my-app/2' });
    await login(named);
    expect(fake.requests[2]!.headers['user-agent']).toBe('my-app/2');
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(SDK_VERSION).toBe(manifest.version);
  });

  it('files.waitFor gives up after its timeout with FileWaitTimeoutError', async () => {
    const pending = json(200, { id: FILE_ID, status: 'processing', download_url: null });
    answers.push(pending, pending, pending, pending, pending, pending);
    const failure = await client.files
      .waitFor(FILE_ID, { timeout: 50, pollInterval: 20 })
      .catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(FileWaitTimeoutError);
    expect(failure).toMatchObject({ file: { id: FILE_ID, status: 'processing' } });
  });

  it("sends a generator's own parameters beside the generic fields", async () => {
    answers.push(json(202, { file_ids: [FILE_ID], status: 'pending' }));
    await client.generations.create(
      'images',
      { generator_id: FILE_ID, prompt: 'a fox' },
      { parameters: { quality: 'hd' } },
    );
    expect(JSON.parse(fake.requests[0]!.body)).toEqual({
      generator_id: FILE_ID,
      prompt: 'a fox',
      quality: 'hd',
    });
  });

  it('files.downloadTo writes into a Node Writable, waiting on its backpressure, or a web WritableStream', async () => {
    const record = { id: FILE_ID, status: 'completed', download_url: `/api/v1/files/${FILE_ID}/content` };
    const content = Buffer.alloc(256 * 1024, 7);
    const serve: Answer = (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(content);
    };
    const received: Buffer[] = [];
    let drained = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk);
        setImmediate(done);
      },
    });
    slow.on('drain', () => drained++);
    answers.push(json(200, record), serve);
    await client.files.downloadTo(FILE_ID, slow);
    expect(Buffer.concat(received).equals(content)).toBe(true);
    expect(drained).toBeGreaterThan(0);
    expect(slow.writableFinished).toBe(true);

    const web: Uint8Array[] = [];
    answers.push(json(200, record), serve);
    await client.files.downloadTo(FILE_ID, new WritableStream({ write: (chunk) => void web.push(chunk) }));
    expect(Buffer.concat(web).equals(content)).toBe(true);

    const broken = new Writable({ write: (_chunk, _encoding, done) => done(new Error('disk full')) });
    answers.push(json(200, record), serve);
    await expect(client.files.downloadTo(FILE_ID, broken)).rejects.toThrow('disk full');
  });
});
