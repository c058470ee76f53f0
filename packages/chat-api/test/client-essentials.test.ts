import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

/** What every Zulip client asks for first: its own user, the realm URL, default channels, public history. */
describe('client essentials: /users/me, realm_url, default channels, register fields, public history', () => {
  let stack: TestStack;
  let admin: TestUser;
  let member: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack({
      MUSE_CHAT_REALM_HOST: 'chat.example.test',
      MUSE_CHAT_EXTERNAL_URL: 'https://chat.example.test:8443',
    });
    await makeOrganization(stack);
    admin = await makeUser(stack, { role: 200 });
    member = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  it('GET /users/me answers the caller, in the reference shape', async () => {
    const { status, body } = await call(url(), 'GET', '/users/me', member);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      user_id: member.id,
      email: member.email,
      delivery_email: member.email,
      role: 400,
      is_admin: false,
      max_message_id: -1,
      profile_data: {},
    });
    expectZulipSchema('/users/me', 'get', body);
  });

  it('realm_url is the configured external URL, whatever Host the request used; dummy addresses use the realm host', async () => {
    const settings = await call(url(), 'GET', '/server_settings', null);
    expect(settings.body.realm_url).toBe('https://chat.example.test:8443');
    expectZulipSchema('/server_settings', 'get', settings.body);
    const registered = await call(url(), 'POST', '/register', member, { fetch_event_types: ['realm'] });
    expect(registered.body.realm_url).toBe('https://chat.example.test:8443');
    const dummy = await call(url(), 'GET', `/users/user${member.id}@chat.example.test`, admin);
    expect(dummy.status).toBe(200);
  });

  it('a new user joins the default channels; /register lists them and the new fields', async () => {
    const created = await call(url(), 'POST', '/users/me/subscriptions', admin, {
      subscriptions: [{ name: 'welcome' }],
      is_default_stream: true,
    });
    expect(created.status).toBe(200);
    const newcomer = await makeUser(stack);
    const subs = await call(url(), 'GET', '/users/me/subscriptions', newcomer);
    const joined = subs.body.subscriptions as { name: string; stream_id: number }[];
    expect(joined.map((s) => s.name)).toEqual(['general', 'welcome']);
    const { body } = await call(url(), 'POST', '/register', newcomer, {});
    expect(body.realm_default_streams).toEqual(joined.map((s) => s.stream_id));
    expect(body.realm_new_stream_announcements_stream_id).toEqual(expect.any(Number));
    expect(body.has_videocall_token).toBe(false);
    expect(body.has_zoom_token).toBe(false);
    const groups = body.realm_user_groups as { name: string; is_system_group: boolean }[];
    expect(groups.map((g) => g.name)).toContain('role:everyone');
    expectZulipSchema('/register', 'post', body);
  });

  it('GET /messages on a public channel shows its history to a member who is not subscribed', async () => {
    await call(url(), 'POST', '/users/me/subscriptions', admin, { subscriptions: [{ name: 'history' }] });
    const sent = await call(url(), 'POST', '/messages', admin, {
      type: 'stream',
      to: 'history',
      topic: 'old news',
      content: 'before you came',
    });
    expect(sent.status).toBe(200);
    const { status, body } = await call(url(), 'GET', '/messages', member, {
      anchor: 'newest',
      num_before: 10,
      narrow: [{ operator: 'channel', operand: 'history' }],
    });
    expect(status).toBe(200);
    const messages = body.messages as { id: number; flags: string[] }[];
    expect(messages.map((m) => m.id)).toEqual([sent.body.id]);
    expect(messages[0]?.flags).toEqual(['read', 'historical']);
    expectZulipSchema('/messages', 'get', body);
    // A private channel stays hidden from a non-subscriber: narrowing to it answers as to no channel.
    await call(url(), 'POST', '/users/me/subscriptions', admin, {
      subscriptions: [{ name: 'secret' }],
      invite_only: true,
    });
    await call(url(), 'POST', '/messages', admin, {
      type: 'stream',
      to: 'secret',
      topic: 't',
      content: 'hush',
    });
    const hidden = await call(url(), 'GET', '/messages', member, {
      anchor: 'newest',
      num_before: 10,
      narrow: [{ operator: 'channel', operand: 'secret' }],
    });
    const missing = await call(url(), 'GET', '/messages', member, {
      anchor: 'newest',
      num_before: 10,
      narrow: [{ operator: 'channel', operand: 'no-such-channel' }],
    });
    expect([hidden.status, hidden.body]).toEqual([missing.status, missing.body]);
    expect(hidden.body).toMatchObject({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown channel',
    });
  });

  it('nothing configured: push is off (devices and test notifications are BAD_REQUEST), no video provider', async () => {
    const settings = await call(url(), 'GET', '/server_settings', null);
    expect(settings.body.push_notifications_enabled).toBe(false);
    const device = await call(url(), 'POST', '/users/me/android_gcm_reg_id', member, { token: 'fcm-x' });
    expect(device.status).toBe(400);
    expect(device.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Push notifications are not configured on this server',
    });
    const test = await call(url(), 'POST', '/mobile_push/test_notification', member);
    expect(test.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Push notifications are not configured on this server',
    });
    const videoCall = await call(url(), 'POST', '/calls/videocall/create', member);
    expect(videoCall.status).toBe(400);
    expect(videoCall.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Jitsi Meet is not configured on this server',
    });
  });
});
