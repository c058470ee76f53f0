import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone, type TestUser } from '@muse/test-support/content';
import { balanceOf, createGenerator, submit, waitForFile } from '@muse/test-support/generation';
import { json, startFakeServer, type FakeServer } from '@muse/test-support/fakes/server';
import { addWebhookProvider, api, exchangeCode, requestCode } from '@muse/test-support/login';
import type { CodeReceiver } from '@muse/test-support/fakes/code-receivers';

/** Regression tests of the content service's security findings (issue 14). */
describe('content service hardening', () => {
  let stack: TestStack;
  let admin: TestUser;
  let internal: { url: string; paths: string[]; close(): Promise<unknown> };
  let upstream: FakeServer;
  beforeAll(async () => {
    // The fakes on 127.0.0.1 are allowed; 127.0.0.2 plays an internal service nobody allowed.
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1', MUSE_TRUST_PROXY: 'loopback' });
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    const paths: string[] = [];
    const http: Server = createServer((req, res) => (paths.push(req.url ?? ''), res.end('internal secret')));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.2', resolve));
    internal = {
      url: `http://127.0.0.2:${(http.address() as AddressInfo).port}`,
      paths,
      close: () => new Promise((resolve) => http.close(resolve)),
    };
    // An OpenAI-style upstream whose image results point at the internal service.
    upstream = await startFakeServer((request, res) => {
      if (request.path === '/v1/images/generations')
        return json(res, 200, { data: [{ url: `${internal.url}/latest/meta-data` }] });
      if (request.path === '/redirect') {
        res.writeHead(307, { location: `${internal.url}/hook` });
        return void res.end();
      }
      json(res, 404, {});
    });
  });
  afterAll(async () => {
    await upstream.close();
    await internal.close();
    await stack.stop();
  });

  it('SSRF: a result URL pointing at an internal address is not fetched; the task fails and is refunded', async () => {
    const generatorId = await createGenerator(stack, admin, {
      kind: 'image',
      type: 'openai',
      base_cost: 2,
      config: { base_url: upstream.url, model: 'm', response_format: 'url', max_attempts: 1 },
      secrets: { api_key: 'sk' },
    });
    const user = await createTestUser(stack, { balance: 5 });
    const answer = await submit(stack, user, 'images', { generator_id: generatorId, prompt: 'x' });
    expect(answer.status).toBe(202);
    const file = await waitForFile(stack, user, answer.body.file_ids[0]!);
    expect(file.status).toBe('failed');
    expect(file.error_message).toBe(
      'The generation failed: The upstream call failed: The address is not one this server may call',
    );
    expect(internal.paths).toEqual([]);
    expect(await balanceOf(stack, user.id)).toBe(5);
  });

  it('SSRF: base_url must be http(s); file:// and gopher:// are refused at creation', async () => {
    for (const base_url of ['file:///etc/passwd', 'gopher://127.0.0.1:70/_stats', 'not a url']) {
      const created = await api(stack, '/api/v1/generators', {
        method: 'POST',
        headers: admin.headers,
        body: {
          name: `g-${Math.random()}`,
          kind: 'text',
          type: 'openai',
          base_cost: 1,
          config: { base_url },
        },
      });
      expect(created.status).toBe(422);
      expect(created.body.details).toContainEqual({
        path: '/config/base_url',
        message: 'must be an http or https URL',
      });
    }
  });

  it('SSRF: a link-local base_url (cloud metadata) is refused when called, with a short reason', async () => {
    const generatorId = await createGenerator(stack, admin, {
      kind: 'text',
      type: 'openai',
      base_cost: 1,
      config: { base_url: 'http://169.254.169.254', model: 'm', max_attempts: 1 },
    });
    const user = await createTestUser(stack, { balance: 1 });
    const answer = await submit(stack, user, 'texts', { generator_id: generatorId, prompt: 'x' });
    const file = await waitForFile(stack, user, answer.body.file_ids[0]!);
    expect(file.error_message).toBe(
      'The generation failed: The upstream call failed: The address is not one this server may call',
    );
    expect(await balanceOf(stack, user.id)).toBe(1);
  });

  it('webhook code provider: a redirect to an internal address is not followed', async () => {
    const created = await api(stack, '/api/v1/verification-code-providers', {
      method: 'POST',
      headers: admin.headers,
      body: {
        name: 'redirecting',
        type: 'webhook',
        priority: 1,
        config: { url: `${upstream.url}/redirect` },
        secrets: { signing_secret: 'a-signing-secret-of-length' },
      },
    });
    expect(created.status).toBe(201);
    const answer = await requestCode(stack, '13900000001');
    expect(answer.status).toBe(502);
    expect(internal.paths).toEqual([]);
    await api(stack, `/api/v1/verification-code-providers/${created.body.id}`, {
      method: 'DELETE',
      headers: admin.headers,
    });
  });

  describe('login limits cannot be used against someone else', () => {
    const attacker = { 'X-Forwarded-For': '10.66.0.1' };
    const owner = { 'X-Forwarded-For': '10.77.0.1' };
    let receiver: CodeReceiver & { providerId: string };
    beforeAll(async () => {
      receiver = await addWebhookProvider(stack, admin, { priority: 0 });
      const configured = await api(stack, '/api/v1/server-config', {
        method: 'PATCH',
        headers: admin.headers,
        body: { code_cooldown_seconds: 1, codes_per_phone_per_day: 2, login_attempts_per_phone_per_hour: 3 },
      });
      expect(configured.status).toBe(200);
    });
    afterAll(async () => {
      await api(stack, '/api/v1/server-config', {
        method: 'PATCH',
        headers: admin.headers,
        body: {
          code_cooldown_seconds: 60,
          codes_per_phone_per_day: 10,
          login_attempts_per_phone_per_hour: 10,
        },
      });
      await receiver.close();
    });

    /** Asks again until the one-second cool-down has passed (never a fixed sleep). */
    async function requestAfterCooldown(phone: string, headers: Record<string, string>) {
      for (;;) {
        const answer = await requestCode(stack, phone, headers);
        if (answer.status !== 429 || !/moments ago/.test(answer.body.message)) return answer;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    it("wrong codes from another address do not lock the owner's login", async () => {
      const phone = randomPhone();
      expect((await requestCode(stack, phone, owner)).status).toBe(204);
      for (let i = 0; i < 4; i++) await exchangeCode(stack, phone, '000000', attacker);
      expect((await exchangeCode(stack, phone, '000000', attacker)).status).toBe(429);
      const code = receiver.codeFor(phone)!;
      const fresh =
        code === '000000' ? code : (await requestAfterCooldown(phone, owner), receiver.codeFor(phone)!);
      expect((await exchangeCode(stack, phone, fresh, owner)).status).toBe(200);
    });

    it("codes requested from another address do not use up the owner's daily codes", async () => {
      const phone = randomPhone();
      expect((await requestAfterCooldown(phone, attacker)).status).toBe(204);
      expect((await requestAfterCooldown(phone, attacker)).status).toBe(204);
      const refused = await requestAfterCooldown(phone, attacker);
      expect(refused.status).toBe(429);
      expect((await requestAfterCooldown(phone, owner)).status).toBe(204);
    });

    it('the cool-down counts from the last send, even when that code was used', async () => {
      await api(stack, '/api/v1/server-config', {
        method: 'PATCH',
        headers: admin.headers,
        body: { code_cooldown_seconds: 60 },
      });
      try {
        const phone = randomPhone();
        expect((await requestCode(stack, phone, owner)).status).toBe(204);
        expect((await exchangeCode(stack, phone, receiver.codeFor(phone)!, owner)).status).toBe(200);
        const again = await requestCode(stack, phone, owner);
        expect(again.status).toBe(429);
        expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(50);
      } finally {
        await api(stack, '/api/v1/server-config', {
          method: 'PATCH',
          headers: admin.headers,
          body: { code_cooldown_seconds: 1 },
        });
      }
    });
  });

  describe('uploads and generator bounds', () => {
    const upload = (user: TestUser, bytes: number, filename = 'a.bin') => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(bytes, 1)]), filename);
      return fetch(`${stack.contentUrl}/api/v1/files`, { method: 'POST', headers: user.headers, body: form });
    };

    it('an upload of exactly max_upload_bytes is accepted; one byte more is 413', async () => {
      expect(
        (
          await api(stack, '/api/v1/server-config', {
            method: 'PATCH',
            headers: admin.headers,
            body: { max_upload_bytes: 2048 },
          })
        ).status,
      ).toBe(200);
      const user = await createTestUser(stack);
      const exact = await upload(user, 2048);
      expect(exact.status).toBe(201);
      expect(((await exact.json()) as { size: number }).size).toBe(2048);
      expect((await upload(user, 2049)).status).toBe(413);
    });

    it('a UTF-8 filename is stored as sent', async () => {
      const user = await createTestUser(stack);
      const answer = await upload(user, 10, '图片 café.png');
      expect(answer.status).toBe(201);
      expect(((await answer.json()) as { name: string }).name).toBe('图片 café.png');
    });

    it('base_cost of 2^31 or more is a 422, not a 500', async () => {
      const created = await api(stack, '/api/v1/generators', {
        method: 'POST',
        headers: admin.headers,
        body: { name: 'too dear', kind: 'text', type: 'builtin', base_cost: 2 ** 31 },
      });
      expect(created.status).toBe(422);
      expect(created.body.details).toContainEqual(expect.objectContaining({ path: '/body/base_cost' }));
    });
  });

  describe('malformed JSON values', () => {
    const post = (user: TestUser, path: string, text: string) =>
      fetch(`${stack.contentUrl}${path}`, {
        method: 'POST',
        headers: { ...user.headers, 'content-type': 'application/json' },
        body: text,
      });

    it('a NUL character anywhere in a JSON body is a 422, stored nowhere', async () => {
      const user = await createTestUser(stack);
      for (const body of [
        '{"name":"s","parameters":{"a":"x\\u0000y"}}',
        '{"name":"s","tags":["a\\u0000"]}',
        '{"name":"bad\\u0000name"}',
      ]) {
        const answer = await post(user, '/api/v1/skills', body);
        expect(answer.status).toBe(422);
        expect(((await answer.json()) as { message: string }).message).toMatch(/NUL/);
      }
      const listed = await api(stack, '/api/v1/skills', { headers: user.headers });
      expect(listed.body.items ?? listed.body).toHaveLength(0);
    });

    it('JSON nested 10,000 levels deep is a 422, not a 500', async () => {
      const user = await createTestUser(stack);
      const deep = `{"name":"s","parameters":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
      const answer = await post(user, '/api/v1/skills', deep);
      expect(answer.status).toBe(422);
      expect(((await answer.json()) as { message: string }).message).toMatch(/nested deeper than 64/);
    });
  });

  it('path variants (case, trailing slash) need the same token as the documented path', async () => {
    // Plain fetch: these paths are not in the document, so the contract-checking helper is no use.
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${stack.contentUrl}${path}`, { headers });
    const id = '00000000-0000-4000-8000-000000000001';
    for (const path of [
      `/api/v1/generators/${id}/`,
      `/api/v1/Generators/${id}`,
      '/API/V1/FILES/',
      '/api/v1/skills/',
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect((await get(path, admin.headers)).status, path).toBeLessThan(500);
    }
  });

  it('invite-code guessing is rate limited per account (429 after 20 tries an hour)', async () => {
    const user = await createTestUser(stack);
    for (let i = 0; i < 20; i++) {
      const guess = await api(stack, '/api/v1/invite-codes/redeem', {
        method: 'POST',
        headers: user.headers,
        body: { code: `guess-${i}` },
      });
      expect(guess.status).toBe(404);
    }
    const limited = await api(stack, '/api/v1/invite-codes/redeem', {
      method: 'POST',
      headers: user.headers,
      body: { code: 'guess-20' },
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
