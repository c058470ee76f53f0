import { once } from 'node:events';
import { readdir } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDocumentedAnswer, servedContract } from '@muse/test-support/contract';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  waitForEvents,
  waitUntil,
  type TestUser,
} from '@muse/test-support/chat';
import { expectZulipComponent, expectZulipSchema } from './zulip-schema.ts';

const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;

/** Uploads (POST /user_uploads, the file's URL) and attachments, over real HTTP. */
describe('uploads and attachments', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  let guest: TestUser;
  let outsider: TestUser;
  const url = () => stack.chatUrl;

  /** A multipart upload as Zulip's clients send it; the answer must be one the served document allows. */
  const upload = async (user: TestUser, files: { name: string; body: Buffer | string; type?: string }[]) => {
    const form = new FormData();
    files.forEach((f, i) =>
      form.append(`file-${i}`, new Blob([f.body], { type: f.type ?? 'text/plain' }), f.name),
    );
    const response = await fetch(`${url()}/api/v1/user_uploads`, {
      method: 'POST',
      headers: { authorization: basic(user) },
      body: form,
    });
    const body = (await response.json()) as Record<string, unknown>;
    expectDocumentedAnswer(await servedContract(url()), 'POST', `${url()}/api/v1/user_uploads`, {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body,
    });
    return { status: response.status, body };
  };
  const download = (path: string, user: TestUser | null) =>
    fetch(`${url()}${path}`, user ? { headers: { authorization: basic(user) } } : {});
  const send = (user: TestUser, params: Record<string, unknown>) =>
    call(url(), 'POST', '/messages', user, params).then((r) => r.body.id as number);

  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '1000' });
    await makeOrganization(stack);
    await makeOrganization(stack, 'elsewhere');
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    guest = await makeUser(stack, { role: 600 });
    outsider = await makeUser(stack);
    await call(url(), 'POST', '/users/me/subscriptions', alice, { subscriptions: [{ name: 'files' }] });
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'hidden-files' }],
      invite_only: true,
      principals: [alice.id, bob.id],
    });
  });
  afterAll(() => stack.stop());

  it('uploads a file: Zulip’s answer, an attachment event, and only the uploader may download it', async () => {
    const queue = (await call(url(), 'POST', '/register', alice, { event_types: ['attachment'] })).body
      .queue_id as string;
    const reply = await upload(alice, [{ name: 'my notes (v2).txt', body: 'hello file' }]);
    expect(reply.status).toBe(200);
    expectZulipSchema('/user_uploads', 'post', reply.body);
    const link = reply.body.url as string;
    expect(reply.body.uri).toBe(link);
    expect(reply.body.filename).toBe('my-notes-v2.txt');
    expect(link).toMatch(/^\/user_uploads\/\d+\/[0-9a-f]{1,2}\/[\w-]{24}\/my-notes-v2\.txt$/);
    const [added] = await waitForEvents(url(), alice, queue, (e) => e.length >= 1);
    expect(added).toMatchObject({
      type: 'attachment',
      op: 'add',
      attachment: { name: 'my-notes-v2.txt', size: 10, messages: [] },
    });
    expectZulipComponent('Attachment', added!.attachment);

    const mine = await download(link, alice);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toBe('hello file');
    expect(mine.headers.get('content-type')).toMatch(/^text\/plain/);
    const others = await download(link, bob);
    expect(others.status).toBe(403);
    expect(((await others.json()) as { msg: string }).msg).toBe('You are not authorized to view this file.');
    expect((await download(link, null)).status).toBe(401);
    expect((await download(`${link}x`, alice)).status).toBe(404);
  });

  it('keeps a non-ASCII filename as UTF-8', async () => {
    const reply = await upload(alice, [{ name: 'résumé 文件 😀.txt', body: 'cv' }]);
    expect(reply.status).toBe(200);
    expect(reply.body.filename).toBe('résumé-文件-.txt');
    expect(reply.body.url).toMatch(/\/r%C3%A9sum%C3%A9-%E6%96%87%E4%BB%B6-\.txt$/);
    const served = await download(reply.body.url as string, alice);
    expect(served.headers.get('content-disposition')).toBe(
      "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9-%E6%96%87%E4%BB%B6-.txt",
    );
  });

  it('spools a file past 64 KiB to a temporary file while it arrives, removed after the answer', async () => {
    const spooled = async () =>
      (await readdir(tmpdir())).filter((name) => name.startsWith('muse-chat-upload-'));
    const before = new Set(await spooled());
    const contents = Buffer.alloc(5 * 1024 * 1024, 'muse');
    const boundary = 'spool-boundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const req = request(`${url()}/api/v1/user_uploads`, {
      method: 'POST',
      headers: {
        authorization: basic(alice),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + contents.length + tail.length),
      },
    });
    const answer = once(req, 'response').then(([res]) => res as IncomingMessage);
    // Half the file, then wait: it is on disk, not in the process's memory.
    req.write(Buffer.concat([head, contents.subarray(0, contents.length / 2)]));
    await waitUntil(
      async () => (await spooled()).some((name) => !before.has(name)),
      'the upload to be spooled to a temporary file',
    );
    req.end(Buffer.concat([contents.subarray(contents.length / 2), tail]));
    const res = await answer;
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    expect(res.statusCode).toBe(200);
    const { url: link } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { url: string };
    const served = await download(link, alice);
    expect(Buffer.from(await served.arrayBuffer()).equals(contents)).toBe(true);
    await waitUntil(
      async () => (await spooled()).every((name) => before.has(name)),
      'the temporary file to be removed',
    );
  });

  it('serves scriptable types as opaque bytes, every file sandboxed', async () => {
    const files = [
      { name: 'page.html', type: 'text/html', body: '<script>alert(1)</script>' },
      {
        name: 'image.svg',
        type: 'image/svg+xml',
        body: '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>',
      },
      { name: 'code.js', type: 'text/javascript', body: 'alert(1)' },
      { name: 'data.xml', type: 'application/xml', body: '<x/>' },
      { name: 'notes.txt', type: 'text/plain', body: 'plain' },
    ];
    for (const file of files) {
      const link = (await upload(alice, [file])).body.url as string;
      const served = await download(link, alice);
      expect([file.name, served.status]).toEqual([file.name, 200]);
      const servedType = served.headers.get('content-type')!.split(';')[0];
      expect([file.name, servedType]).toEqual([
        file.name,
        file.type === 'text/plain' ? 'text/plain' : 'application/octet-stream',
      ]);
      expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await served.text()).toBe(file.body);
    }
  });

  it('a part that declares no type (the Python client sends none) takes its name’s extension’s type', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f4d1a40000000049454e44ae426082',
      'hex',
    );
    // As requests (the Python client) writes it: no Content-Type in the part.
    const boundary = 'zulip-python-boundary';
    const untyped = await fetch(`${url()}/api/v1/user_uploads`, {
      method: 'POST',
      headers: { authorization: basic(alice), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="dot.png"\r\n\r\n`,
        ),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(untyped.status).toBe(200);
    const opaque = await upload(alice, [{ name: 'dot.png', body: png, type: 'application/octet-stream' }]);
    for (const link of [((await untyped.json()) as { url: string }).url, opaque.body.url as string]) {
      const served = await download(link, alice);
      expect([link, served.headers.get('content-type')]).toEqual([link, 'image/png']);
    }
    // A declared type stays.
    const declared = await upload(alice, [{ name: 'dot.png', body: png, type: 'image/gif' }]);
    expect((await download(declared.body.url as string, alice)).headers.get('content-type')).toBe(
      'image/gif',
    );
  });

  it('decodes a file’s path once: a bad escape is 404, a doubly encoded name names another file', async () => {
    const link = (await upload(alice, [{ name: 'x.html', body: 'x' }])).body.url as string;
    const folder = link.slice(0, link.lastIndexOf('/') + 1);
    expect((await download(`${folder}x%2Ehtml`, alice)).status).toBe(200);
    for (const path of [
      `${folder}x%252Ehtml`,
      `${folder}%25`,
      `${folder}%E0%A4%A`,
      '/user_uploads/1/x/%25',
    ]) {
      const served = await download(path, alice);
      expect([path, served.status]).toEqual([path, 404]);
      expect(((await served.json()) as { msg: string }).msg).toBe('File not found');
    }
  });

  it('a message linking the file shares it with those who can see the message', async () => {
    const publicFile = (await upload(alice, [{ name: 'public.txt', body: 'for everyone' }])).body
      .url as string;
    const privateFile = (await upload(alice, [{ name: 'private.txt', body: 'for bob' }])).body.url as string;
    const dmFile = (await upload(alice, [{ name: 'dm.txt', body: 'direct' }])).body.url as string;
    await send(alice, { type: 'stream', to: 'files', topic: 't', content: `[public](${publicFile})` });
    const privateId = await send(alice, {
      type: 'stream',
      to: 'hidden-files',
      topic: 't',
      content: `[p](${privateFile})`,
    });
    await send(alice, { type: 'direct', to: JSON.stringify([bob.id]), content: `[d](${dmFile})` });

    // A public channel: every member, not a guest; an invite-only one: its subscribers; a DM: its recipients.
    expect((await download(publicFile, bob)).status).toBe(200);
    expect((await download(publicFile, guest)).status).toBe(403);
    expect((await download(privateFile, bob)).status).toBe(200);
    expect((await download(privateFile, outsider)).status).toBe(403);
    expect((await download(dmFile, bob)).status).toBe(200);
    expect((await download(dmFile, outsider)).status).toBe(403);

    // Someone who cannot see a file cannot share it by linking it.
    const stolen = await send(outsider, {
      type: 'stream',
      to: 'files',
      topic: 't',
      content: `[x](${privateFile})`,
    });
    expect(stolen).toBeGreaterThan(privateId);
    expect((await download(privateFile, guest)).status).toBe(403);

    const listed = await call(url(), 'GET', '/attachments', alice);
    expectZulipSchema('/attachments', 'get', listed.body);
    const entry = (listed.body.attachments as { path_id: string; messages: { id: number }[] }[]).find(
      (a) => `/user_uploads/${a.path_id}` === privateFile,
    );
    expect(entry?.messages.map((m) => m.id)).toEqual([privateId]);
    expect(listed.body.upload_space_used).toBeGreaterThan(0);
  });

  it('refuses what Zulip refuses', async () => {
    const none = await fetch(`${url()}/api/v1/user_uploads`, {
      method: 'POST',
      headers: { authorization: basic(alice) },
      body: new FormData(),
    });
    expect(((await none.json()) as { msg: string }).msg).toBe('You must specify a file to upload');
    const two = await upload(alice, [
      { name: 'a.txt', body: 'a' },
      { name: 'b.txt', body: 'b' },
    ]);
    expect([two.status, two.body.msg]).toEqual([400, 'You may only upload one file at a time']);
    const big = await upload(alice, [{ name: 'big.bin', body: Buffer.alloc(25 * 1024 * 1024 + 1) }]);
    expect([big.status, big.body.msg]).toEqual([
      400,
      'Uploaded file is larger than the allowed limit of 25 MiB',
    ]);
    // Nothing of the refused uploads was kept.
    const names = (
      (await call(url(), 'GET', '/attachments', alice)).body.attachments as { name: string }[]
    ).map((a) => a.name);
    expect(names).not.toContain('big.bin');
    expect(names).not.toContain('a.txt');
  });

  it('deletes the caller’s own attachment only; its link stops working', async () => {
    const link = (await upload(alice, [{ name: 'gone.txt', body: 'bye' }])).body.url as string;
    const attachments = (await call(url(), 'GET', '/attachments', alice)).body.attachments as {
      id: number;
      path_id: string;
    }[];
    const id = attachments.find((a) => `/user_uploads/${a.path_id}` === link)!.id;
    const refused = await call(url(), 'DELETE', `/attachments/${id}`, bob);
    expect([refused.status, refused.body.msg]).toEqual([400, 'Invalid attachment']);
    expect((await call(url(), 'DELETE', `/attachments/${id}`, alice)).status).toBe(200);
    expect((await download(link, alice)).status).toBe(404);
    expect((await call(url(), 'DELETE', `/attachments/${id}`, alice)).body.msg).toBe('Invalid attachment');
    expect((await call(url(), 'DELETE', '/attachments/abc', alice)).status).toBe(404);
  });

  it('register reports the organization’s upload limit', async () => {
    const state = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['realm'] });
    expect(state.body.max_file_upload_size_mib).toBe(25);
  });
});
