import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

describe('authentication, API keys and server settings', () => {
  let stack: TestStack;
  let owner: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_DEV_ENDPOINTS: 'true', MUSE_CHAT_AUTH_ATTEMPTS: '3' });
    await makeOrganization(stack);
    await makeOrganization(stack, 'other');
    owner = await makeUser(stack, { role: 100 });
  });
  afterAll(() => stack.stop());

  it('GET /server_settings advertises the feature level and the limits', async () => {
    const { status, body } = await call(stack.chatUrl, 'GET', '/server_settings', null);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      result: 'success',
      zulip_feature_level: 420,
      max_stream_name_length: 60,
      max_topic_length: 60,
    });
    expect(body.max_message_length).toBe(10000);
    expect(body.max_stream_description_length).toBe(1024);
    expectZulipSchema('/server_settings', 'get', body);
  });

  it('POST /fetch_api_key returns the key for the right password, in the reference shape', async () => {
    const { status, body } = await call(stack.chatUrl, 'POST', '/fetch_api_key', null, {
      username: owner.email,
      password: owner.password,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ api_key: owner.apiKey, email: owner.email, user_id: owner.id });
    expect(owner.apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
    expectZulipSchema('/fetch_api_key', 'post', body);
  });

  it('POST /fetch_api_key: a wrong password is 401, and repeated failures hit the rate limit (429)', async () => {
    const user = await makeUser(stack);
    for (let i = 0; i < 3; i++) {
      const wrong = await call(stack.chatUrl, 'POST', '/fetch_api_key', null, {
        username: user.email,
        password: 'nope',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.code).toBe('AUTHENTICATION_FAILED');
      expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
    }
    const limited = await call(stack.chatUrl, 'POST', '/fetch_api_key', null, {
      username: user.email,
      password: user.password,
    });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMIT_HIT');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('POST /fetch_api_key without password is 400 REQUEST_VARIABLE_MISSING with var_name', async () => {
    const { status, body } = await call(stack.chatUrl, 'POST', '/fetch_api_key', null, {
      username: owner.email,
    });
    expect(status).toBe(400);
    expect(body).toEqual({
      result: 'error',
      msg: "Missing 'password' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'password',
    });
  });

  it('POST /dev_fetch_api_key works on a development server', async () => {
    const { status, body } = await call(stack.chatUrl, 'POST', '/dev_fetch_api_key', null, {
      username: owner.email,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ api_key: owner.apiKey, email: owner.email, user_id: owner.id });
    expectZulipSchema('/dev_fetch_api_key', 'post', body);
  });

  it('POST /dev_fetch_api_key is an error on a production server', async () => {
    const production = await startTestStack({ NODE_ENV: 'production', MUSE_CHAT_DEV_ENDPOINTS: 'true' });
    try {
      await makeOrganization(production);
      const user = await makeUser(production);
      const { status, body } = await call(production.chatUrl, 'POST', '/dev_fetch_api_key', null, {
        username: user.email,
      });
      expect(status).toBe(400);
      expect(body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
      expect(body.api_key).toBeUndefined();
    } finally {
      await production.stop();
    }
  });

  const unauthorizedCases: [string, () => Record<string, string>, string][] = [
    ['no credentials', () => ({}), "Missing 'Authorization' header."],
    [
      'a bearer token',
      () => ({ authorization: 'Bearer abc' }),
      'This endpoint requires HTTP basic authentication.',
    ],
    [
      'malformed basic value',
      () => ({ authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` }),
      'Invalid authorization header for basic auth',
    ],
    [
      'a wrong key',
      () => ({
        authorization: `Basic ${Buffer.from(`${owner.email}:${'x'.repeat(32)}`).toString('base64')}`,
      }),
      'Invalid API key',
    ],
    [
      'a key of the wrong shape',
      () => ({ authorization: `Basic ${Buffer.from(`${owner.email}:short`).toString('base64')}` }),
      'Invalid API key',
    ],
    [
      'another user’s email',
      () => ({
        authorization: `Basic ${Buffer.from(`someone@example.com:${owner.apiKey}`).toString('base64')}`,
      }),
      "Invalid API key for user 'someone@example.com'",
    ],
  ];
  for (const [name, headers, msg] of unauthorizedCases) {
    it(`401 UNAUTHORIZED with the Basic challenge for ${name}`, async () => {
      const {
        status,
        headers: h,
        body,
      } = await call(stack.chatUrl, 'GET', '/users/me/alert_words', null, {}, headers());
      expect(status).toBe(401);
      expect(h.get('www-authenticate')).toBe('Basic realm="zulip"');
      expect(body).toEqual({ result: 'error', code: 'UNAUTHORIZED', msg });
    });
  }

  it('401 for a deactivated user', async () => {
    const user = await makeUser(stack);
    await call(stack.chatUrl, 'DELETE', `/users/${user.id}`, owner);
    const { status, body } = await call(stack.chatUrl, 'GET', '/users/me/alert_words', user);
    expect(status).toBe(401);
    expect(body).toMatchObject({ code: 'USER_DEACTIVATED', msg: 'Account is deactivated' });
  });

  it('401 for a deactivated organization', async () => {
    await makeOrganization(stack, 'closed');
    const user = await makeUser(stack, { subdomain: 'closed' });
    await stack.database.db.query("UPDATE chat.realms SET deactivated = true WHERE string_id = 'closed'");
    const { status, body } = await call(
      stack.chatUrl,
      'GET',
      '/users/me/alert_words',
      user,
      {},
      { host: 'closed.localhost' },
    );
    expect(status).toBe(401);
    expect(body).toMatchObject({ code: 'REALM_DEACTIVATED', msg: 'This organization has been deactivated' });
  });

  it('selects the organization by subdomain: a key of one organization is not valid on another', async () => {
    const member = await makeUser(stack, { subdomain: 'other' });
    const there = await call(
      stack.chatUrl,
      'GET',
      '/users/me/alert_words',
      member,
      {},
      { host: 'other.localhost' },
    );
    expect(there.status).toBe(200);
    const here = await call(stack.chatUrl, 'GET', '/users/me/alert_words', member);
    expect(here.status).toBe(401);
  });

  it('lists unknown parameters in ignored_parameters_unsupported', async () => {
    const { body } = await call(stack.chatUrl, 'GET', '/users/me/alert_words', owner, { foo: 1, bar: 'x' });
    expect(body.ignored_parameters_unsupported).toEqual(['foo', 'bar']);
    expectZulipSchema('/users/me/alert_words', 'get', body);
  });
});
