import http2 from 'node:http2';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApns, type FakeApns } from '@muse/test-support/fakes/apns';
import { startFakeFcm, type FakeFcm } from '@muse/test-support/fakes/fcm';
import { directPushEnv } from '@muse/test-support/fakes/direct-push';
import { startFakeBouncer, type FakeBouncer } from '@muse/test-support/fakes/push-bouncer';
import { loadConfig } from '@muse/core';
import { createPushSender } from '../src/push/index.ts';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, waitUntil, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema, expectZulipSuccess } from './zulip-schema.ts';

const APNS_TOKEN = 'a1b2c3d4'.repeat(8);
const APP_ID = 'org.zulip.Zulip';

async function devicesOf(stack: TestStack, userId: number): Promise<string[]> {
  const [found] = await stack.database.db.query(
    'SELECT token FROM chat.push_devices WHERE user_id = :userId ORDER BY id',
    {
      replacements: { userId },
    },
  );
  return (found as { token: string }[]).map((row) => row.token);
}

describe('push devices and notifications, direct APNs (HTTP/2, ES256 token auth) and FCM HTTP v1', () => {
  let stack: TestStack;
  let apns: FakeApns;
  let fcm: FakeFcm;
  let alice: TestUser;
  let bob: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    apns = await startFakeApns();
    fcm = await startFakeFcm();
    stack = await startTestStack(directPushEnv(apns, fcm));
    await makeOrganization(stack);
    alice = await makeUser(stack, { name: 'Alice Anders' });
    bob = await makeUser(stack, { name: 'Bob Berg' });
  });
  afterAll(async () => {
    await stack.stop();
    await apns.close();
    await fcm.close();
  });

  it('server_settings says push is enabled', async () => {
    const { body } = await call(url(), 'GET', '/server_settings', null);
    expect(body.push_notifications_enabled).toBe(true);
  });

  it("registers devices under Zulip's paths and the deprecated ones, with the spec's token validation", async () => {
    const ios = await call(url(), 'POST', '/users/me/apns_device_token', bob, {
      token: APNS_TOKEN,
      appid: APP_ID,
    });
    expect(ios.status).toBe(200);
    expectZulipSuccess(ios.body);
    const legacy = await call(url(), 'POST', '/users/me/ios_device_token', bob, {
      token: APNS_TOKEN,
      appid: APP_ID,
    });
    expect(legacy.status).toBe(200); // idempotent: the same device
    const android = await call(url(), 'POST', '/users/me/android_gcm_reg_id', bob, {
      token: 'fcm-token-bob',
    });
    expectZulipSuccess(android.body);
    expect(await devicesOf(stack, bob.id)).toEqual([APNS_TOKEN, 'fcm-token-bob']);

    const cases: [string, Record<string, string>, string][] = [
      ['/users/me/apns_device_token', { token: '', appid: APP_ID }, 'Empty or invalid length token'],
      [
        '/users/me/ios_device_token',
        { token: 'x'.repeat(4097), appid: APP_ID },
        'Empty or invalid length token',
      ],
      ['/users/me/apns_device_token', { token: 'not-hex!', appid: APP_ID }, 'Invalid APNS token'],
      ['/users/me/apns_device_token', { token: APNS_TOKEN, appid: 'bad app id' }, 'Invalid app ID'],
      ['/users/me/android_gcm_reg_id', { token: '' }, 'Empty or invalid length token'],
    ];
    for (const [route, params, msg] of cases) {
      const { status, body } = await call(url(), 'POST', route, bob, params);
      expect(status).toBe(400);
      expect(body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg });
    }
    const missing = await call(url(), 'POST', '/users/me/ios_device_token', bob, { token: APNS_TOKEN });
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'appid' });
  });

  it('removing: an Android token that does not exist is BAD_REQUEST; the deprecated path removes', async () => {
    const unknown = await call(url(), 'DELETE', '/users/me/android_reg_id', alice, {
      token: 'never-registered',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Token does not exist' });
    await call(url(), 'POST', '/users/me/android_gcm_reg_id', alice, { token: 'fcm-token-alice-old' });
    const removed = await call(url(), 'DELETE', '/users/me/android_reg_id', alice, {
      token: 'fcm-token-alice-old',
    });
    expectZulipSuccess(removed.body);
    const apnsGone = await call(url(), 'DELETE', '/users/me/apns_device_token', alice, { token: APNS_TOKEN });
    expect(apnsGone.body.msg).toBe('Token does not exist');
    expect(await devicesOf(stack, alice.id)).toEqual([]);
  });

  it('POST /mobile_push/test_notification delivers event "test" with realm_name through APNs and FCM', async () => {
    const one = await call(url(), 'POST', '/mobile_push/test_notification', bob, { token: APNS_TOKEN });
    expect(one.status).toBe(200);
    expectZulipSchema('/mobile_push/test_notification', 'post', one.body);
    expect(apns.delivered).toHaveLength(1);
    expect(fcm.delivered).toHaveLength(0);
    expect(apns.delivered[0]).toMatchObject({
      token: APNS_TOKEN,
      topic: APP_ID,
      payload: { event: 'test', realm_name: 'Org root', aps: { alert: { title: 'Test notification' } } },
    });
    const all = await call(url(), 'POST', '/mobile_push/test_notification', bob);
    expect(all.status).toBe(200);
    expect(apns.delivered).toHaveLength(2);
    expect(fcm.delivered).toEqual([
      { token: 'fcm-token-bob', data: expect.objectContaining({ event: 'test', realm_name: 'Org root' }) },
    ]);
    expect(apns.refused).toBe(0);
  });

  it('an unknown token is INVALID_PUSH_DEVICE_TOKEN; no device at all NO_ACTIVE_PUSH_DEVICE', async () => {
    const { status, body } = await call(url(), 'POST', '/mobile_push/test_notification', bob, {
      token: 'ffff',
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ result: 'error', code: 'INVALID_PUSH_DEVICE_TOKEN' });
    const none = await call(url(), 'POST', '/mobile_push/test_notification', alice);
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ result: 'error', code: 'NO_ACTIVE_PUSH_DEVICE' });
  });

  it("a direct message or a mention reaches an offline user's devices; a connected user gets none", async () => {
    const before = apns.delivered.length;
    const dm = await call(url(), 'POST', '/messages', alice, {
      type: 'direct',
      to: [bob.id],
      content: 'ping',
    });
    expect(dm.status).toBe(200);
    await waitUntil(() => apns.delivered.length > before && fcm.delivered.length > 1, 'the DM push');
    expect(apns.delivered.at(-1)?.payload).toMatchObject({
      event: 'message',
      zulip_message_id: String(dm.body.id),
      sender_full_name: 'Alice Anders',
      realm_name: 'Org root',
      aps: { alert: { title: 'Alice Anders', body: 'ping' } },
    });
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'team' }],
      principals: [alice.id, bob.id],
    });
    const plain = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'team',
      topic: 't',
      content: 'hello all',
    });
    const mention = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'team',
      topic: 'review',
      content: '@**Bob Berg** please look',
    });
    await waitUntil(
      () => apns.delivered.some((p) => p.payload.zulip_message_id === String(mention.body.id)),
      'the mention push',
    );
    expect(apns.delivered.some((p) => p.payload.zulip_message_id === String(plain.body.id))).toBe(false);

    // Bob connects: his client has a live queue, so no push.
    await call(url(), 'POST', '/register', bob, { event_types: ['message'] });
    const seen = await call(url(), 'POST', '/messages', alice, {
      type: 'direct',
      to: [bob.id],
      content: 'online?',
    });
    const marker = await call(url(), 'POST', '/messages', bob, {
      type: 'direct',
      to: [alice.id],
      content: 'marker',
    });
    await call(url(), 'POST', '/users/me/apns_device_token', alice, {
      token: 'bb'.repeat(32),
      appid: APP_ID,
    });
    const ack = await call(url(), 'POST', '/messages', bob, {
      type: 'direct',
      to: [alice.id],
      content: 'ack',
    });
    await waitUntil(
      () => apns.delivered.some((p) => p.payload.zulip_message_id === String(ack.body.id)),
      'alice push',
    );
    expect(marker.status).toBe(200);
    expect(apns.delivered.some((p) => p.payload.zulip_message_id === String(seen.body.id))).toBe(false);
  });

  it('a muted sender pushes nothing: the message arrives read', async () => {
    // alice is offline with a device (the test above); she mutes bob.
    expect((await call(url(), 'POST', `/users/me/muted_users/${bob.id}`, alice)).status).toBe(200);
    const muted = await call(url(), 'POST', '/messages', bob, {
      type: 'direct',
      to: [alice.id],
      content: 'muted ping',
    });
    const carol = await makeUser(stack, { name: 'Carol Chen' });
    const heard = await call(url(), 'POST', '/messages', carol, {
      type: 'direct',
      to: [alice.id],
      content: 'heard',
    });
    await waitUntil(
      () => apns.delivered.some((p) => p.payload.zulip_message_id === String(heard.body.id)),
      "carol's push",
    );
    expect(apns.delivered.some((p) => p.payload.zulip_message_id === String(muted.body.id))).toBe(false);
  });

  it('the fakes refuse what the real services refuse: a foreign APNs key, an unknown FCM bearer', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: apns.keyId })
      .setIssuer(apns.teamId)
      .setIssuedAt()
      .sign(privateKey);
    const session = http2.connect(apns.url);
    const status = await new Promise<number>((resolve, reject) => {
      const request = session.request({
        ':method': 'POST',
        ':path': `/3/device/${APNS_TOKEN}`,
        authorization: `bearer ${foreign}`,
        'apns-topic': APP_ID,
      });
      let answered = 0;
      request.on('response', (headers) => (answered = Number(headers[':status'])));
      request.on('end', () => resolve(answered));
      request.on('error', reject);
      request.resume();
      request.end('{}');
    });
    session.destroy();
    expect(status).toBe(403);
    const send = await fetch(`${fcm.server.url}/v1/projects/${fcm.serviceAccount.project_id}/messages:send`, {
      method: 'POST',
      headers: { authorization: 'Bearer ya29.guessed', 'content-type': 'application/json' },
      body: JSON.stringify({ message: { token: 'fcm-token-bob', data: {} } }),
    });
    expect(send.status).toBe(401);
  });

  it('a token the service reports unregistered is removed', async () => {
    const carol = await makeUser(stack);
    await call(url(), 'POST', '/users/me/android_gcm_reg_id', carol, { token: 'fcm-token-carol' });
    await call(url(), 'POST', '/users/me/apns_device_token', carol, {
      token: 'cc'.repeat(32),
      appid: APP_ID,
    });
    fcm.unregistered.add('fcm-token-carol');
    apns.unregistered.add('cc'.repeat(32));
    await call(url(), 'POST', '/messages', alice, {
      type: 'direct',
      to: [carol.id],
      content: 'are you there',
    });
    await waitUntil(async () => (await devicesOf(stack, carol.id)).length === 0, 'the devices to be removed');
  });
});

describe("push through Zulip's push bouncer", () => {
  let stack: TestStack;
  let bouncer: FakeBouncer;
  let dana: TestUser;
  let eve: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    bouncer = await startFakeBouncer();
    stack = await startTestStack({
      MUSE_PUSH_SENDER: 'bouncer',
      MUSE_PUSH_BOUNCER_URL: bouncer.server.url,
      MUSE_PUSH_BOUNCER_SERVER_UUID: bouncer.serverUuid,
      MUSE_PUSH_BOUNCER_API_KEY: bouncer.apiKey,
    });
    await makeOrganization(stack);
    dana = await makeUser(stack);
    eve = await makeUser(stack);
  });
  afterAll(async () => {
    await stack.stop();
    await bouncer.close();
  });

  it('registers the device with the bouncer and sends the test notification through it', async () => {
    const added = await call(url(), 'POST', '/users/me/android_gcm_reg_id', dana, { token: 'fcm-dana' });
    expect(added.status).toBe(200);
    expect(bouncer.devices).toEqual([{ user_id: String(dana.id), token: 'fcm-dana', token_kind: '2' }]);
    const sent = await call(url(), 'POST', '/mobile_push/test_notification', dana, { token: 'fcm-dana' });
    expect(sent.status).toBe(200);
    expect(JSON.parse(bouncer.tests[0]?.base_payload ?? '{}')).toMatchObject({
      event: 'test',
      realm_name: 'Org root',
    });
  });

  it('a token the bouncer does not know is INVALID_REMOTE_PUSH_DEVICE_TOKEN', async () => {
    bouncer.devices.length = 0; // the bouncer lost the registration
    const { status, body } = await call(url(), 'POST', '/mobile_push/test_notification', dana, {
      token: 'fcm-dana',
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ result: 'error', code: 'INVALID_REMOTE_PUSH_DEVICE_TOKEN' });
  });

  it("an offline recipient's push goes through notify; devices the bouncer deleted are removed here", async () => {
    await call(url(), 'POST', '/users/me/apns_device_token', eve, { token: 'ee'.repeat(32), appid: APP_ID });
    bouncer.unregistered.add('ee'.repeat(32));
    await call(url(), 'POST', '/messages', dana, { type: 'direct', to: [eve.id], content: 'hi eve' });
    await waitUntil(() => bouncer.notifications.length > 0, 'the notify call');
    expect(bouncer.notifications[0]).toMatchObject({
      user_id: eve.id,
      apple_devices: ['ee'.repeat(32)],
      gcm_payload: expect.objectContaining({ event: 'message', content: 'hi eve' }),
    });
    await waitUntil(async () => (await devicesOf(stack, eve.id)).length === 0, "eve's device to be removed");
  });
});

describe('the development push sender (MUSE_PUSH_SENDER=log, what npm start configures)', () => {
  let stack: TestStack;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ NODE_ENV: 'development', MUSE_PUSH_SENDER: 'log' });
    await makeOrganization(stack);
    user = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  it('registers devices and answers test notifications offline, logging instead of sending', async () => {
    const settings = await call(stack.chatUrl, 'GET', '/server_settings', null);
    expect(settings.body.push_notifications_enabled).toBe(true);
    const ios = await call(stack.chatUrl, 'POST', '/users/me/apns_device_token', user, {
      token: APNS_TOKEN,
      appid: APP_ID,
    });
    expect(ios.status).toBe(200);
    const android = await call(stack.chatUrl, 'POST', '/users/me/android_gcm_reg_id', user, {
      token: 'dev-fcm-token',
    });
    expect(android.status).toBe(200);
    const test = await call(stack.chatUrl, 'POST', '/mobile_push/test_notification', user);
    expect(test.status).toBe(200);
    expectZulipSchema('/mobile_push/test_notification', 'post', test.body);
  });

  it('is refused in production: the process does not start with it', () => {
    expect(() =>
      createPushSender(loadConfig({ NODE_ENV: 'production', MUSE_PUSH_SENDER: 'log' }), stack.logger),
    ).toThrow(/MUSE_PUSH_SENDER=log/);
  });
});
