import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { sendStreamed } from '@muse/test-support/streamed-body';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';

const MIB = 1024 * 1024;
const BOUNDARY = 'muse-test-boundary';
const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;

/** A multipart body starting with `head`, streamed (see sendStreamed). */
const sendMultipart = (
  url: string,
  options: { method?: string; authorization?: string; total?: number; chunked?: boolean; head: string },
) =>
  sendStreamed(url, {
    ...options,
    headers: {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      ...(options.authorization ? { authorization: options.authorization } : {}),
    },
  });

const fileHead = (name = 'big.bin') =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
  'Content-Type: application/octet-stream\r\n\r\n';
const field = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const end = `--${BOUNDARY}--\r\n`;

/** The messaging API's body budget (http/body.ts), over real HTTP. */
describe('request bodies: read after authentication, on a known route, within a budget', () => {
  let stack: TestStack;
  let alice: TestUser;

  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    alice = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  it('answers a stranger’s 40 MiB upload 401 before reading it, and closes the connection', async () => {
    const total = 40 * MIB;
    const reply = await sendMultipart(`${stack.chatUrl}/api/v1/user_uploads`, { total, head: fileHead() });
    expect([reply.status, reply.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(reply.headers.connection).toBe('close');
    // The server answered with most of the body still unsent (socket buffers hold a few MiB).
    expect(reply.sentWhenAnswered).toBeLessThan(total / 2);
  });

  it('answers an unknown path 404 without reading the body, even for a known caller', async () => {
    const total = 40 * MIB;
    const head = Array.from({ length: 20 }, (_, i) => field(`f${i}`, 'v')).join('') + fileHead();
    const reply = await sendMultipart(`${stack.chatUrl}/api/v1/users/me`, {
      total,
      head,
      authorization: basic(alice),
    });
    expect([reply.status, reply.body.msg]).toEqual([404, 'Unknown endpoint: POST /users/me']);
    expect(reply.sentWhenAnswered).toBeLessThan(total / 2);
  });

  it('refuses a declared Content-Length past the budget with 413 before reading', async () => {
    const total = 60 * MIB;
    const reply = await sendMultipart(`${stack.chatUrl}/api/v1/settings`, {
      method: 'PATCH',
      total,
      head: field('full_name', 'x'),
      authorization: basic(alice),
    });
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'The request body is larger than the limit of 2097152 bytes',
    });
    expect(reply.sentWhenAnswered).toBeLessThan(total / 2);
    // An upload's budget is the organization's limit (25 MiB) and 64 KiB beside it.
    const upload = await sendMultipart(`${stack.chatUrl}/api/v1/user_uploads`, {
      total: 40 * MIB,
      head: fileHead(),
      authorization: basic(alice),
    });
    expect([upload.status, upload.body.msg]).toEqual([
      413,
      `The request body is larger than the limit of ${25 * MIB + 64 * 1024} bytes`,
    ]);
  });

  it('cuts off a chunked body that grows past the budget with 413', async () => {
    // No Content-Length: the file part stops at 25 MiB and the body at 64 KiB past it.
    const total = 40 * MIB;
    const reply = await sendMultipart(`${stack.chatUrl}/api/v1/user_uploads`, {
      total,
      chunked: true,
      head: fileHead(),
      authorization: basic(alice),
    });
    expect([reply.status, reply.body.msg]).toEqual([
      413,
      `The request body is larger than the limit of ${25 * MIB + 64 * 1024} bytes`,
    ]);
    expect(reply.sentWhenAnswered).toBeLessThan(total);
  });

  it('refuses too many fields with 413 and an over-long field with 400', async () => {
    const many = Array.from({ length: 201 }, (_, i) => field(`f${i}`, 'v')).join('') + end;
    const tooMany = await sendMultipart(`${stack.chatUrl}/api/v1/settings`, {
      method: 'PATCH',
      head: many,
      authorization: basic(alice),
    });
    expect([tooMany.status, tooMany.body.msg]).toEqual([413, 'Too many form fields (limit: 200)']);

    const long = field('full_name', 'x'.repeat(MIB + 1)) + end;
    const tooLong = await sendMultipart(`${stack.chatUrl}/api/v1/settings`, {
      method: 'PATCH',
      head: long,
      authorization: basic(alice),
    });
    expect([tooLong.status, tooLong.body.msg]).toEqual([400, 'full_name is too long (limit: 1048576 bytes)']);

    // The same budget holds for urlencoded forms.
    const form = new URLSearchParams(Array.from({ length: 201 }, (_, i): [string, string] => [`f${i}`, 'v']));
    const urlencoded = await fetch(`${stack.chatUrl}/api/v1/settings`, {
      method: 'PATCH',
      headers: { authorization: basic(alice) },
      body: form,
    });
    expect([urlencoded.status, ((await urlencoded.json()) as { msg: string }).msg]).toEqual([
      413,
      'Too many form fields (limit: 200)',
    ]);
  });

  it('refuses a file part where no file is taken, and a malformed body, with 400', async () => {
    const file = await sendMultipart(`${stack.chatUrl}/api/v1/settings`, {
      method: 'PATCH',
      head: `${fileHead('x.txt')}hello\r\n${end}`,
      authorization: basic(alice),
    });
    expect([file.status, file.body.msg]).toEqual([400, 'File uploads are not accepted here']);
    const malformed = await fetch(`${stack.chatUrl}/api/v1/settings`, {
      method: 'PATCH',
      headers: { authorization: basic(alice), 'content-type': 'multipart/form-data' },
      body: 'no boundary',
    });
    expect([malformed.status, ((await malformed.json()) as { msg: string }).msg]).toEqual([
      400,
      'Malformed form body',
    ]);
  });

  it('still serves ordinary forms, multipart and urlencoded', async () => {
    const settings = async () =>
      (await call(stack.chatUrl, 'POST', '/register', alice, { fetch_event_types: ['user_settings'] })).body
        .user_settings as Record<string, unknown>;
    const multipart = await sendMultipart(`${stack.chatUrl}/api/v1/settings`, {
      method: 'PATCH',
      head: field('default_language', 'de') + end,
      authorization: basic(alice),
    });
    expect([multipart.status, multipart.body.ignored_parameters_unsupported]).toEqual([200, undefined]);
    expect((await settings()).default_language).toBe('de');
    const urlencoded = await call(stack.chatUrl, 'PATCH', '/settings', alice, { default_language: 'fr' });
    expect(urlencoded.status).toBe(200);
    expect((await settings()).default_language).toBe('fr');
  });
});
