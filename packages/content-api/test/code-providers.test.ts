import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone, type TestUser } from '@muse/test-support/content';
import { api, clientAddress, exchangeCode, requestCode } from '@muse/test-support/login';
import {
  startAliyunFake,
  startTencentFake,
  type CodeReceiver,
} from '@muse/test-support/fakes/code-receivers';

describe('verification-code providers', () => {
  let stack: TestStack;
  let admin: TestUser;
  const fakes: CodeReceiver[] = [];
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1', MUSE_TRUST_PROXY: 'loopback' });
    admin = await createTestUser(stack, { admin: true });
  });
  afterAll(async () => {
    for (const fake of fakes) await fake.close();
    await stack.stop();
  });

  const base = '/api/v1/verification-code-providers';
  const asAdmin = (path: string, method = 'GET', body?: unknown) =>
    api(stack, path, { method, headers: admin.headers, body });
  const only = async (id: string) => {
    const providers = (await asAdmin(base)).body as { id: string }[];
    for (const provider of providers.filter((p) => p.id !== id))
      await asAdmin(`${base}/${provider.id}`, 'DELETE');
  };

  it('creates, reads, lists, changes and deletes a provider, never returning secrets', async () => {
    const created = await asAdmin(base, 'POST', {
      name: 'tencent main',
      type: 'tencent_sms',
      priority: 5,
      config: { secret_id: 'AKIDexample', sdk_app_id: '1400000000', sign_name: 'Muse', template_id: '100' },
      secrets: { secret_key: 'very-secret-key-value' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: 'tencent main',
      type: 'tencent_sms',
      enabled: true,
      priority: 5,
      secrets_set: ['secret_key'],
      code_types: ['sms'],
      config: { region: 'ap-guangzhou', endpoint: 'https://sms.tencentcloudapi.com/' },
    });
    const id = created.body.id as string;
    for (const response of [created, await asAdmin(`${base}/${id}`), await asAdmin(base)]) {
      expect(response.status).toBe(200 + (response === created ? 1 : 0));
      expect(JSON.stringify(response.body)).not.toContain('very-secret-key-value');
    }
    const changed = await asAdmin(`${base}/${id}`, 'PATCH', {
      enabled: false,
      config: { template_id: '200' },
      secrets: { secret_key: 'rotated' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      enabled: false,
      config: { template_id: '200', secret_id: 'AKIDexample' },
      secrets_set: ['secret_key'],
    });
    expect(JSON.stringify(changed.body)).not.toContain('rotated');
    const removingRequired = await asAdmin(`${base}/${id}`, 'PATCH', { secrets: { secret_key: null } });
    expect(removingRequired.status).toBe(422);
    expect((await asAdmin(`${base}/${id}`, 'DELETE')).status).toBe(204);
    expect((await asAdmin(`${base}/${id}`)).status).toBe(404);
    expect((await asAdmin(`${base}/${id}`, 'PATCH', { enabled: true })).status).toBe(404);
    expect((await asAdmin(`${base}/${id}`, 'DELETE')).status).toBe(404);
  });

  it('answers 422 to a configuration the type does not accept, and 409 to a duplicate name', async () => {
    const missing = await asAdmin(base, 'POST', {
      name: 'a',
      type: 'aliyun_sms',
      config: { access_key_id: 'x' },
      secrets: {},
    });
    expect(missing.status).toBe(422);
    expect(missing.body.details.map((d: { message: string }) => d.message).join(' ')).toMatch(
      /sign_name|template_code|access_key_secret/,
    );
    expect((await asAdmin(base, 'POST', { name: 'b', type: 'carrier_pigeon' })).status).toBe(422);
    expect(
      (
        await asAdmin(base, 'POST', {
          name: 'c',
          type: 'webhook',
          config: { url: 'http://example.com/hook' },
          secrets: { signing_secret: 'x'.repeat(16) },
        })
      ).status,
    ).toBe(422);
    expect((await asAdmin(base, 'POST', { name: 'd', type: 'log', config: { unexpected: 1 } })).status).toBe(
      422,
    );
    expect((await asAdmin(base, 'POST', { name: 'dup', type: 'log' })).status).toBe(201);
    expect((await asAdmin(base, 'POST', { name: 'dup', type: 'log' })).status).toBe(409);
    expect((await asAdmin(`${base}/not-a-uuid`)).status).toBe(422);
  });

  it('keeps both of two concurrent changes to one provider (no lost update)', async () => {
    const created = await asAdmin(base, 'POST', {
      name: 'aliyun concurrent',
      type: 'aliyun_sms',
      config: { access_key_id: 'LTAIexample', sign_name: 'Muse', template_code: 'SMS_1' },
      secrets: { access_key_secret: 'secret-value' },
    });
    expect(created.status).toBe(201);
    const path = `${base}/${created.body.id}`;
    for (let round = 1; round <= 10; round++) {
      const answers = await Promise.all([
        asAdmin(path, 'PATCH', { config: { sign_name: `sign ${round}` } }),
        asAdmin(path, 'PATCH', { priority: round }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const stored = (await asAdmin(path)).body;
      expect({ sign: stored.config.sign_name, priority: stored.priority }).toEqual({
        sign: `sign ${round}`,
        priority: round,
      });
    }
    await asAdmin(path, 'DELETE');
  });

  it('lists with the shared pagination and sorting, priority first', async () => {
    const made: string[] = [];
    for (const [name, priority] of [
      ['page b', 2],
      ['page a', 1],
      ['page c', 2],
    ] as const)
      made.push((await asAdmin(base, 'POST', { name, type: 'log', priority })).body.id as string);
    const names = async (query: string) =>
      ((await asAdmin(`${base}?${query}`)).body as { name: string }[])
        .map(({ name }) => name)
        .filter((name) => name.startsWith('page '));
    expect(await names('desc=false&limit=100')).toEqual(['page a', 'page b', 'page c']);
    expect(await names('desc=true&order=updated_at')).toEqual(['page a', 'page c', 'page b']);
    const all = (await asAdmin(`${base}?desc=false`)).body as { id: string }[];
    const second = await asAdmin(`${base}?desc=false&offset=1&limit=1`);
    expect(second.status).toBe(200);
    expect(second.body).toEqual([all[1]]);
    expect((await asAdmin(`${base}?offset=${all.length}`)).body).toEqual([]);
    expect((await asAdmin(`${base}?limit=101`)).status).toBe(422);
    expect((await asAdmin(`${base}?order=name`)).status).toBe(422);
    for (const id of made) await asAdmin(`${base}/${id}`, 'DELETE');
  });

  it('is for administrators only', async () => {
    const user = await createTestUser(stack);
    for (const [method, path] of [
      ['GET', base],
      ['POST', base],
      ['GET', `${base}/00000000-0000-4000-8000-000000000000`],
      ['PATCH', `${base}/00000000-0000-4000-8000-000000000000`],
      ['DELETE', `${base}/00000000-0000-4000-8000-000000000000`],
    ] as const) {
      const response = await api(stack, path, {
        method,
        headers: user.headers,
        ...(method === 'POST' ? { body: { name: 'x', type: 'log' } } : {}),
        ...(method === 'PATCH' ? { body: { enabled: false } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(403);
    }
    expect((await api(stack, base)).status).toBe(401);
  });

  const adapters = [
    {
      type: 'aliyun_sms',
      codeType: 'sms',
      start: () =>
        startAliyunFake({ accessKeyId: 'LTAIexample', accessKeySecret: 'aliyun-secret', action: 'SendSms' }),
      config: (url: string) => ({
        access_key_id: 'LTAIexample',
        sign_name: '缪斯',
        template_code: 'SMS_1',
        endpoint: url,
      }),
      secrets: { access_key_secret: 'aliyun-secret' },
      wrongSecrets: { access_key_secret: 'wrong' },
    },
    {
      type: 'aliyun_voice',
      codeType: 'voice',
      start: () =>
        startAliyunFake({
          accessKeyId: 'LTAIexample',
          accessKeySecret: 'aliyun-secret',
          action: 'SingleCallByTts',
        }),
      config: (url: string) => ({
        access_key_id: 'LTAIexample',
        tts_code: 'TTS_1',
        called_show_number: '4001112222',
        endpoint: url,
      }),
      secrets: { access_key_secret: 'aliyun-secret' },
      wrongSecrets: { access_key_secret: 'wrong' },
    },
    {
      type: 'tencent_sms',
      codeType: 'sms',
      start: () =>
        startTencentFake({
          secretId: 'AKIDexample',
          secretKey: 'tencent-secret',
          service: 'sms',
          action: 'SendSms',
          version: '2021-01-11',
        }),
      config: (url: string) => ({
        secret_id: 'AKIDexample',
        sdk_app_id: '1400000000',
        sign_name: '缪斯',
        template_id: '100',
        endpoint: url,
      }),
      secrets: { secret_key: 'tencent-secret' },
      wrongSecrets: { secret_key: 'wrong' },
    },
    {
      type: 'tencent_voice',
      codeType: 'voice',
      start: () =>
        startTencentFake({
          secretId: 'AKIDexample',
          secretKey: 'tencent-secret',
          service: 'vms',
          action: 'SendTtsVoice',
          version: '2020-09-02',
        }),
      config: (url: string) => ({
        secret_id: 'AKIDexample',
        voice_sdk_app_id: '1400000001',
        template_id: '200',
        endpoint: url,
      }),
      secrets: { secret_key: 'tencent-secret' },
      wrongSecrets: { secret_key: 'wrong' },
    },
  ];

  for (const adapter of adapters) {
    it(`${adapter.type}: delivers a code the provider's fake accepts, signature checked, and the code logs in`, async () => {
      const fake = await adapter.start();
      fakes.push(fake);
      const created = await asAdmin(base, 'POST', {
        name: adapter.type,
        type: adapter.type,
        config: adapter.config(fake.url),
        secrets: adapter.secrets,
      });
      expect(created.status).toBe(201);
      await only(created.body.id);

      const phone = randomPhone();
      expect((await requestCode(stack, phone, clientAddress(), adapter.codeType)).status).toBe(204);
      const code = fake.codeFor(phone);
      expect(code).toMatch(/^\d{6}$/);
      expect((await exchangeCode(stack, phone, code!)).status).toBe(200);

      await asAdmin(`${base}/${created.body.id}`, 'PATCH', { secrets: adapter.wrongSecrets });
      const refused = await requestCode(stack, randomPhone(), clientAddress(), adapter.codeType);
      expect(refused.status).toBe(502);
      expect(fake.codes).toHaveLength(1);

      await asAdmin(`${base}/${created.body.id}`, 'PATCH', { secrets: adapter.secrets });
      fake.failing = true;
      expect((await requestCode(stack, randomPhone(), clientAddress(), adapter.codeType)).status).toBe(502);
      fake.failing = false;

      const otherKind = adapter.codeType === 'sms' ? 'voice' : 'sms';
      expect((await requestCode(stack, randomPhone(), clientAddress(), otherKind)).status).toBe(501);
    });
  }

  it('sends the documented Aliyun and Tencent request fields', async () => {
    const aliyun = fakes[0] as Awaited<ReturnType<typeof startAliyunFake>>;
    expect(aliyun.params()[0]).toMatchObject({
      Action: 'SendSms',
      SignName: '缪斯',
      TemplateCode: 'SMS_1',
      Format: 'JSON',
      Version: '2017-05-25',
    });
    expect(JSON.parse(aliyun.params()[0]!.TemplateParam!)).toHaveProperty('code');
    const tencent = fakes[2] as Awaited<ReturnType<typeof startTencentFake>>;
    expect(tencent.payloads()[0]).toMatchObject({
      SmsSdkAppId: '1400000000',
      SignName: '缪斯',
      TemplateId: '100',
    });
    expect((tencent.payloads()[0]!.PhoneNumberSet as string[])[0]).toMatch(/^\+861\d{10}$/);
    const voice = fakes[3] as Awaited<ReturnType<typeof startTencentFake>>;
    expect(voice.payloads()[0]).toMatchObject({
      VoiceSdkAppid: '1400000001',
      TemplateId: '200',
      PlayTimes: 2,
    });
  });
});

describe('the log provider in production', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      NODE_ENV: 'production',
      MUSE_OUTBOUND_ALLOW: '127.0.0.1',
      MUSE_TRUST_PROXY: 'loopback',
    });
  });
  afterAll(() => stack.stop());

  it('is refused, and one stored earlier delivers nothing, so login codes never reach the logs', async () => {
    const admin = await createTestUser(stack, { admin: true });
    const base = '/api/v1/verification-code-providers';
    const refused = await api(stack, base, {
      method: 'POST',
      headers: admin.headers,
      body: { name: 'console', type: 'log' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.details).toEqual([{ path: 'type', message: expect.stringMatching(/development/) }]);

    await stack.database.db.query(
      `INSERT INTO content.verification_code_providers (name, type) VALUES ('left over', 'log')`,
    );
    const requested = await requestCode(stack, randomPhone());
    expect(requested.status).toBe(501);
  });
});
