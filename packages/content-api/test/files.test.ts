import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { updateServerSettings } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { BUILTIN, submit, getFile } from '@muse/test-support/generation';
import { sendStreamed } from '@muse/test-support/streamed-body';

/** Response bodies are asserted field by field; their shapes are the OpenAPI document's. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('the files API', () => {
  let stack: TestStack;
  let owner: TestUser;
  let other: TestUser;
  let admin: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    owner = await createTestUser(stack, { balance: 10 });
    other = await createTestUser(stack);
    admin = await createTestUser(stack, { admin: true });
  });
  afterAll(() => stack.stop());

  async function upload(user: TestUser, content: Buffer | string, fields: Record<string, string> = {}) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([content], { type: 'text/plain' }), 'notes.txt');
    const response = await fetch(`${stack.contentUrl}/api/v1/files`, {
      method: 'POST',
      headers: user.headers,
      body: form,
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const call = async (method: string, url: string, user?: TestUser, body?: unknown) => {
    const response = await fetch(url.startsWith('http') ? url : `${stack.contentUrl}${url}`, {
      method,
      headers: { ...user?.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : undefined,
    };
  };

  const storedFiles = async () =>
    (
      await readdir(path.join(stack.config.MUSE_DATA_DIR, 'files'), {
        recursive: true,
        withFileTypes: true,
      }).catch(() => [])
    )
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);

  const rowCount = async (ownerId: string) => {
    const [row] = await stack.database.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM content.files WHERE owner_id = :ownerId',
      {
        replacements: { ownerId },
        type: QueryTypes.SELECT,
      },
    );
    return Number(row!.n);
  };

  it('uploads a file (201) and serves its content through the signed download_url', async () => {
    const { status, body } = await upload(owner, 'hello muse', { name: 'greeting.txt' });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: 'greeting.txt',
      visibility: 'private',
      status: 'completed',
      source: 'upload',
      size: 10,
      owner_id: owner.id,
    });
    const content = await fetch(body.download_url);
    expect(content.status).toBe(200);
    expect(await content.text()).toBe('hello muse');
    expect(content.headers.get('content-type')).toContain('text/plain');
    expect(content.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
  });

  it('serves uploaded HTML, SVG and script inert: opaque bytes, sandboxed, never sniffed', async () => {
    const scriptable = [
      ['page.html', 'text/html', '<script>alert(1)</script>'],
      [
        'image.svg',
        'image/svg+xml',
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      ],
      ['code.js', 'application/javascript', 'alert(1)'],
      ['feed.xml', 'application/xml', '<x/>'],
    ];
    for (const [name, type, text] of scriptable) {
      const form = new FormData();
      form.append('file', new Blob([text!], { type }), name);
      const response = await fetch(`${stack.contentUrl}/api/v1/files`, {
        method: 'POST',
        headers: owner.headers,
        body: form,
      });
      const record = (await response.json()) as Json;
      expect(response.status).toBe(201);
      const content = await fetch(record.download_url);
      expect(content.status).toBe(200);
      expect([name, content.headers.get('content-type')]).toEqual([name, 'application/octet-stream']);
      expect(content.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(content.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await content.text()).toBe(text);
    }
  });

  it('answers 413 above max_upload_bytes and keeps neither a row nor stored content', async () => {
    await updateServerSettings(stack.database.db, { max_upload_bytes: 1000 });
    try {
      const user = await createTestUser(stack);
      const storedBefore = (await storedFiles()).length;
      const { status, body } = await upload(user, Buffer.alloc(5000, 1));
      expect(status).toBe(413);
      expect(body.code).toBe('payload_too_large');
      expect(await rowCount(user.id)).toBe(0);
      expect((await storedFiles()).filter((name) => !name.endsWith('.partial'))).toHaveLength(storedBefore);
      expect((await storedFiles()).some((name) => name.endsWith('.partial'))).toBe(false);
      expect((await upload(user, Buffer.alloc(900, 1))).status).toBe(201);
    } finally {
      await updateServerSettings(stack.database.db, { max_upload_bytes: 20 * 1024 * 1024 });
    }
  });

  it('reads no body before the token: a stranger’s 40 MiB upload is 401 unread, the connection closed', async () => {
    const total = 40 * 2 ** 20;
    const reply = await sendStreamed(`${stack.contentUrl}/api/v1/files`, {
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      head: '--b\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n',
      total,
    });
    expect(reply.status).toBe(401);
    expect(reply.headers.connection).toBe('close');
    expect(reply.sentWhenAnswered).toBeLessThan(total / 2);
  });

  it('cuts a chunked upload off at its budget (413) and keeps nothing', async () => {
    await updateServerSettings(stack.database.db, { max_upload_bytes: 1024 * 1024 });
    try {
      const user = await createTestUser(stack);
      const total = 40 * 2 ** 20;
      const reply = await sendStreamed(`${stack.contentUrl}/api/v1/files`, {
        headers: { ...user.headers, 'content-type': 'multipart/form-data; boundary=b' },
        head: '--b\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n',
        total,
        chunked: true,
      });
      expect([reply.status, reply.body.code]).toEqual([413, 'payload_too_large']);
      expect(reply.sentWhenAnswered).toBeLessThan(total);
      expect(await rowCount(user.id)).toBe(0);
      expect((await storedFiles()).some((name) => name.endsWith('.partial'))).toBe(false);
    } finally {
      await updateServerSettings(stack.database.db, { max_upload_bytes: 20 * 1024 * 1024 });
    }
  });

  it.each([
    { body: 'declared past 1 MiB with 413 before reading it', chunked: false },
    { body: 'that grows past 1 MiB (chunked) with 413 at once, not after reading it all', chunked: true },
  ])('answers a JSON body $body', async ({ chunked }) => {
    const total = 40 * 2 ** 20;
    const reply = await sendStreamed(`${stack.contentUrl}/api/v1/users/me`, {
      method: 'PATCH',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      head: '{"nickname":"',
      total,
      chunked,
    });
    expect([reply.status, reply.body.code]).toEqual([413, 'payload_too_large']);
    expect(reply.sentWhenAnswered).toBeLessThan(total / 2);
  });

  it('answers 422 without a file part, 400 for a malformed body, 401 without a token', async () => {
    const form = new FormData();
    form.append('name', 'nothing');
    const response = await fetch(`${stack.contentUrl}/api/v1/files`, {
      method: 'POST',
      headers: owner.headers,
      body: form,
    });
    expect(response.status).toBe(422);
    const anonymous = await fetch(`${stack.contentUrl}/api/v1/files`, { method: 'POST', body: form });
    expect(anonymous.status).toBe(401);
    const malformed = await fetch(`${stack.contentUrl}/api/v1/files`, {
      method: 'POST',
      headers: { ...owner.headers, 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nunterminated',
    });
    expect(malformed.status).toBe(400);
  });

  it('shows own and public files, hides another user’s private file behind the same 404 as a missing one', async () => {
    const secret = (await upload(owner, 'secret')).body;
    const shared = (await upload(owner, 'shared', { visibility: 'public' })).body;
    expect((await call('GET', `/api/v1/files/${secret.id}`, other)).status).toBe(404);
    expect((await call('GET', '/api/v1/files/3f2c4a9e-1111-4222-8333-944455556666', other)).status).toBe(404);
    expect((await call('GET', `/api/v1/files/${shared.id}`, other)).body.id).toBe(shared.id);
    expect((await call('GET', `/api/v1/files/${secret.id}`, admin)).status).toBe(200);
    const malformed = await call('GET', '/api/v1/files/not-a-uuid', other);
    expect(malformed.status).toBe(422);
    expect(malformed.body.code).toBe('validation_error');
    const disabled = await createTestUser(stack, { active: false });
    expect((await call('GET', `/api/v1/files/${shared.id}`, disabled)).status).toBe(403);
    expect((await call('GET', `/api/v1/files/${secret.id}`)).status).toBe(401);
  });

  it('lists files by scope with pagination: own, public, all (administrators only)', async () => {
    const lister = await createTestUser(stack);
    for (let i = 0; i < 3; i++)
      await upload(lister, `n${i}`, { name: `f${i}`, visibility: i === 0 ? 'public' : 'private' });
    const own = await call('GET', '/api/v1/files?limit=2&desc=false', lister);
    expect(own.body.map((f: { name: string }) => f.name)).toEqual(['f0', 'f1']);
    expect((await call('GET', '/api/v1/files?offset=2', lister)).body).toHaveLength(1);
    expect((await call('GET', '/api/v1/files?offset=10', lister)).body).toEqual([]);
    const publicFiles = await call('GET', '/api/v1/files?scope=public&limit=100', other);
    expect(publicFiles.body.every((f: { visibility: string }) => f.visibility === 'public')).toBe(true);
    expect(publicFiles.body.map((f: { name: string }) => f.name)).toContain('f0');
    expect((await call('GET', '/api/v1/files?scope=all', lister)).status).toBe(403);
    expect(
      (await call('GET', '/api/v1/files?scope=all&limit=100', admin)).body.length,
    ).toBeGreaterThanOrEqual(3);
    expect((await call('GET', '/api/v1/files?limit=101', lister)).status).toBe(422);
  });

  it('lets the owner rename and publish; another user’s public file is 403, private 404; administrators may', async () => {
    const file = (await upload(owner, 'x')).body;
    const renamed = await call('PATCH', `/api/v1/files/${file.id}`, owner, {
      name: 'renamed',
      visibility: 'public',
    });
    expect(renamed.body).toMatchObject({ name: 'renamed', visibility: 'public' });
    expect((await call('PATCH', `/api/v1/files/${file.id}`, other, { name: 'stolen' })).status).toBe(403);
    expect((await call('DELETE', `/api/v1/files/${file.id}`, other)).status).toBe(403);
    await call('PATCH', `/api/v1/files/${file.id}`, owner, { visibility: 'private' });
    expect((await call('PATCH', `/api/v1/files/${file.id}`, other, { name: 'stolen' })).status).toBe(404);
    expect((await call('PATCH', `/api/v1/files/${file.id}`, admin, { name: 'by admin' })).body.name).toBe(
      'by admin',
    );
    expect((await call('PATCH', `/api/v1/files/${file.id}`, owner, { visibility: 'everyone' })).status).toBe(
      422,
    );
  });

  it('deletes a file and its content; the old link then answers 404', async () => {
    const file = (await upload(owner, 'bye')).body;
    const deleted = await call('DELETE', `/api/v1/files/${file.id}`, owner);
    expect(deleted.status).toBe(204);
    expect((await call('GET', `/api/v1/files/${file.id}`, owner)).status).toBe(404);
    expect((await fetch(file.download_url)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/files/${file.id}`, owner)).status).toBe(404);
  });

  it('refuses to delete a file whose generation is still running (409)', async () => {
    const { body } = await submit(stack, owner, 'texts', {
      generator_id: BUILTIN.text,
      prompt: 'no worker runs here',
    });
    expect((await getFile(stack, owner, body.file_ids[0]!)).body).toMatchObject({
      status: 'pending',
      download_url: null,
    });
    expect((await call('DELETE', `/api/v1/files/${body.file_ids[0]}`, owner)).status).toBe(409);
  });

  it('answers 403 to a download link with a wrong signature or past its expiry, without a token', async () => {
    const file = (await upload(owner, 'guarded')).body;
    const url = new URL(file.download_url);
    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}AA`);
    expect((await fetch(tampered)).status).toBe(403);
    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(extended)).status).toBe(403);
    const expired = new URL(url);
    expired.searchParams.set('expires', '1000');
    expect((await fetch(expired)).status).toBe(403);
    const otherFile = (await upload(owner, 'other')).body;
    const swapped = new URL(url.toString().replace(file.id, otherFile.id));
    expect((await fetch(swapped)).status).toBe(403);
    expect((await fetch(`${stack.contentUrl}/api/v1/files/${file.id}/content`)).status).toBe(422);
  });
});
