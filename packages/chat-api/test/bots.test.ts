import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectZulipComponent } from './zulip-schema.ts';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  waitForEvents,
  type QueuedEvent,
  type TestUser,
} from '@muse/test-support/chat';

/** Bot accounts (Zulip's /bots) and a bot's storage (/bot_storage), over real HTTP. */
describe('bots', () => {
  let stack: TestStack;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let guest: TestUser;
  const url = () => stack.chatUrl;
  const register = async (user: TestUser, types: string[]) =>
    (await call(url(), 'POST', '/register', user, { event_types: types })).body;
  const events = (user: TestUser, queue: string, n: number) =>
    waitForEvents(url(), user, queue, (seen) => seen.length >= n);
  let counter = 0;
  const createBot = async (owner: TestUser, params: Record<string, unknown> = {}) => {
    counter += 1;
    const reply = await call(url(), 'POST', '/bots', owner, {
      full_name: `Bot number ${counter}`,
      short_name: `b${counter}`,
      ...params,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const email = `b${counter}-bot@localhost`;
    return { id: reply.body.user_id as number, email, apiKey: reply.body.api_key as string, password: '' };
  };

  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '1000' });
    await makeOrganization(stack);
    admin = await makeUser(stack, { role: 200 });
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    guest = await makeUser(stack, { role: 600 });
  });
  afterAll(() => stack.stop());

  it('creates a generic bot: everyone hears realm_user add, its owner and the admins realm_bot add', async () => {
    const aliceQueue = (await register(alice, ['realm_bot', 'realm_user'])).queue_id as string;
    const adminQueue = (await register(admin, ['realm_bot'])).queue_id as string;
    const bobQueue = (await register(bob, ['realm_bot', 'realm_user'])).queue_id as string;
    const bot = await createBot(alice);
    const aliceEvents = await events(alice, aliceQueue, 2);
    const added = aliceEvents.find((e) => e.type === 'realm_bot') as QueuedEvent & {
      bot: Record<string, unknown>;
    };
    expect(added).toMatchObject({
      op: 'add',
      bot: {
        user_id: bot.id,
        email: bot.email,
        bot_type: 1,
        is_active: true,
        api_key: bot.apiKey,
        owner_id: alice.id,
        services: [],
      },
    });
    expect(aliceEvents.find((e) => e.type === 'realm_user')).toMatchObject({
      op: 'add',
      person: { user_id: bot.id, is_bot: true, bot_type: 1, bot_owner_id: alice.id },
    });
    expectZulipComponent('Bot', added.bot);
    expect((await events(admin, adminQueue, 1))[0]).toMatchObject({ type: 'realm_bot', op: 'add' });
    // Bob hears of the user, not of the bot's administration.
    const bobEvents = await events(bob, bobQueue, 1);
    expect(bobEvents.map((e) => e.type)).toEqual(['realm_user']);

    // The bot logs in with its key and is listed as Zulip lists bots.
    const me = await call(url(), 'GET', '/users/me', bot);
    expect(me.body).toMatchObject({ user_id: bot.id, is_bot: true, email: bot.email });
    const users = await call(url(), 'GET', '/users', bob);
    expect((users.body.members as Record<string, unknown>[]).find((u) => u.user_id === bot.id)).toMatchObject(
      {
        is_bot: true,
        bot_type: 1,
        bot_owner_id: alice.id,
      },
    );
    const listed = await call(url(), 'GET', '/bots', alice);
    expect(listed.body.bots).toContainEqual(
      expect.objectContaining({ username: bot.email, api_key: bot.apiKey, full_name: expect.any(String) }),
    );
    expect((await call(url(), 'GET', '/bots', bob)).body.bots).toEqual([]);
  });

  it('refuses what Zulip refuses when creating', async () => {
    const refused = async (user: TestUser, params: Record<string, unknown>, msg: string) => {
      const reply = await call(url(), 'POST', '/bots', user, {
        full_name: 'Refused bot',
        short_name: 'refused',
        ...params,
      });
      expect(reply.status).toBe(400);
      expect(reply.body.msg).toBe(msg);
    };
    await refused(guest, {}, 'Insufficient permission');
    await refused(alice, { short_name: '  ' }, 'Bad name or username');
    await refused(alice, { short_name: 'a b' }, 'Bad name or username');
    await refused(alice, { full_name: ' ' }, 'Name too short!');
    await refused(alice, { bot_type: 4 }, 'Invalid bot type');
    await refused(alice, { bot_type: 3 }, 'payload_url is not a URL');
    await refused(alice, { bot_type: 3, payload_url: JSON.stringify('ftp://x') }, 'payload_url is not a URL');
    await refused(
      alice,
      { bot_type: 3, payload_url: JSON.stringify('http://x'), interface_type: 2 },
      'Invalid interface type',
    );
    const taken = await createBot(alice);
    await refused(alice, { short_name: taken.email.split('-bot@')[0] }, 'Username already in use');
    // A bot's key creates no bot of any type (Zulip: bots cannot create bots).
    for (const bot_type of [1, 2, 3])
      await refused(
        taken,
        { bot_type, payload_url: JSON.stringify('http://127.0.0.1:9/hook') },
        'This endpoint does not accept bot requests.',
      );
    await refused(alice, { full_name: `bot NUMBER ${counter}` }, 'Name is already in use!');
    // Nothing half-written: no account was created by the refusals.
    const users = (await call(url(), 'GET', '/users', alice)).body.members as { full_name: string }[];
    expect(users.filter((u) => u.full_name === 'Refused bot')).toEqual([]);
  });

  it('creates an outgoing-webhook bot with its service and token', async () => {
    const queue = (await register(alice, ['realm_bot'])).queue_id as string;
    const bot = await createBot(alice, {
      bot_type: 3,
      payload_url: JSON.stringify('http://127.0.0.1:9/hook'),
    });
    const [added] = await events(alice, queue, 1);
    const services = (added!.bot as { services: Record<string, unknown>[] }).services;
    expect(services).toEqual([
      { base_url: 'http://127.0.0.1:9/hook', interface: 1, token: expect.stringMatching(/^\w{32}$/) },
    ]);
    const state = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['realm_bot'] });
    for (const listed of state.body.realm_bots as unknown[]) expectZulipComponent('Bot', listed);
    expect(state.body.realm_bots).toContainEqual(
      expect.objectContaining({ user_id: bot.id, bot_type: 3, services }),
    );

    const changed = await call(url(), 'PATCH', `/bots/${bot.id}`, alice, {
      service_payload_url: JSON.stringify('https://bots.example.com/'),
    });
    expect(changed.body).toMatchObject({
      service_payload_url: 'https://bots.example.com/',
      service_interface: 1,
    });
    const [update] = await events(alice, queue, 2).then((e) => e.slice(1));
    expect(update).toMatchObject({
      type: 'realm_bot',
      op: 'update',
      bot: {
        user_id: bot.id,
        services: [{ base_url: 'https://bots.example.com/', token: services[0]!.token }],
      },
    });
    const generic = await createBot(alice);
    const refused = await call(url(), 'PATCH', `/bots/${generic.id}`, alice, {
      service_payload_url: JSON.stringify('https://bots.example.com/'),
    });
    expect(refused.body.msg).toBe('This bot has no outgoing webhook');
  });

  it('realm_bots: all bots for an administrator, its own for a member', async () => {
    const mine = await createBot(bob);
    const state = async (user: TestUser) =>
      (await call(url(), 'POST', '/register', user, { fetch_event_types: ['realm_bot'] })).body
        .realm_bots as { user_id: number; owner_id: number }[];
    expect((await state(bob)).map((b) => b.user_id)).toEqual([mine.id]);
    expect((await state(admin)).map((b) => b.user_id)).toContain(mine.id);
    expect((await state(alice)).map((b) => b.user_id)).not.toContain(mine.id);
  });

  it('renames and changes the owner, with the events Zulip sends', async () => {
    const bot = await createBot(alice);
    const other = await call(url(), 'PATCH', `/bots/${bot.id}`, bob, { full_name: 'Hijacked' });
    expect([other.status, other.body.msg]).toEqual([400, 'Insufficient permission']);
    const human = await call(url(), 'PATCH', `/bots/${bob.id}`, admin, { full_name: 'Not a bot' });
    expect(human.body.msg).toBe('No such bot');
    expect((await call(url(), 'PATCH', '/bots/99999999', admin, { full_name: 'x' })).body.msg).toBe(
      'No such bot',
    );

    const bobQueue = (await register(bob, ['realm_bot', 'realm_user'])).queue_id as string;
    const aliceQueue = (await register(alice, ['realm_bot'])).queue_id as string;
    const renamed = await call(url(), 'PATCH', `/bots/${bot.id}`, alice, { full_name: 'Renamed bot' });
    expect(renamed.body).toMatchObject({
      full_name: 'Renamed bot',
      bot_owner: alice.email,
      service_payload_url: null,
    });
    expect((await events(bob, bobQueue, 1))[0]).toMatchObject({
      type: 'realm_user',
      op: 'update',
      person: { user_id: bot.id, full_name: 'Renamed bot' },
    });

    for (const [owner, msg] of [
      [99999999, 'Failed to change owner, no such user'],
      [bot.id, "Failed to change owner, bots can't own other bots"],
    ] as const) {
      expect((await call(url(), 'PATCH', `/bots/${bot.id}`, alice, { bot_owner_id: owner })).body.msg).toBe(
        msg,
      );
    }
    // A guest would read the key of a bot with a member's rights.
    expect((await call(url(), 'PATCH', `/bots/${bot.id}`, alice, { bot_owner_id: guest.id })).body.msg).toBe(
      "Failed to change owner, the new owner's role is below the bot's",
    );
    const leaver = await makeUser(stack);
    await call(url(), 'DELETE', `/users/${leaver.id}`, admin);
    expect((await call(url(), 'PATCH', `/bots/${bot.id}`, alice, { bot_owner_id: leaver.id })).body.msg).toBe(
      'Failed to change owner, user is deactivated',
    );

    const moved = await call(url(), 'PATCH', `/bots/${bot.id}`, alice, { bot_owner_id: bob.id });
    expect(moved.body.bot_owner).toBe(bob.email);
    const aliceEvents = await events(alice, aliceQueue, 2);
    expect(aliceEvents.at(-1)).toMatchObject({ type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } });
    const bobEvents = await events(bob, bobQueue, 3);
    expect(bobEvents).toContainEqual(
      expect.objectContaining({
        type: 'realm_bot',
        op: 'add',
        bot: expect.objectContaining({ user_id: bot.id, owner_id: bob.id }),
      }),
    );
    expect(bobEvents).toContainEqual(
      expect.objectContaining({ type: 'realm_user', person: { user_id: bot.id, bot_owner_id: bob.id } }),
    );
    // Alice no longer administers it.
    expect((await call(url(), 'PATCH', `/bots/${bot.id}`, alice, { full_name: 'Mine again' })).body.msg).toBe(
      'Insufficient permission',
    );
  });

  it('regenerates the API key: the old one stops working', async () => {
    const bot = await createBot(alice);
    const queue = (await register(alice, ['realm_bot'])).queue_id as string;
    const reply = await call(url(), 'POST', `/bots/${bot.id}/api_key/regenerate`, alice);
    const apiKey = reply.body.api_key as string;
    expect(apiKey).toMatch(/^\w{32}$/);
    expect(apiKey).not.toBe(bot.apiKey);
    expect((await call(url(), 'GET', '/users/me', bot)).status).toBe(401);
    expect((await call(url(), 'GET', '/users/me', { ...bot, apiKey })).status).toBe(200);
    expect((await events(alice, queue, 1))[0]).toMatchObject({
      type: 'realm_bot',
      op: 'update',
      bot: { user_id: bot.id, api_key: apiKey },
    });
    expect((await call(url(), 'POST', `/bots/${bot.id}/api_key/regenerate`, bob)).body.msg).toBe(
      'Insufficient permission',
    );
  });

  it('deactivates a bot: its key is refused, everyone hears it', async () => {
    const bot = await createBot(alice);
    const aliceQueue = (await register(alice, ['realm_bot'])).queue_id as string;
    const bobQueue = (await register(bob, ['realm_user'])).queue_id as string;
    expect((await call(url(), 'DELETE', `/bots/${bot.id}`, bob)).body.msg).toBe('Insufficient permission');
    expect((await call(url(), 'DELETE', `/bots/${bot.id}`, alice)).status).toBe(200);
    const refused = await call(url(), 'GET', '/users/me', bot);
    expect([refused.status, refused.body.code]).toEqual([401, 'USER_DEACTIVATED']);
    expect((await events(alice, aliceQueue, 1))[0]).toMatchObject({
      type: 'realm_bot',
      op: 'update',
      bot: { user_id: bot.id, is_active: false },
    });
    expect((await events(bob, bobQueue, 1))[0]).toMatchObject({
      type: 'realm_user',
      person: { user_id: bot.id, is_active: false },
    });
    expect((await call(url(), 'GET', '/bots', alice)).body.bots).not.toContainEqual(
      expect.objectContaining({ username: bot.email }),
    );
    // An administrator may deactivate anyone's bot; a second time changes nothing.
    const other = await createBot(bob);
    expect((await call(url(), 'DELETE', `/bots/${other.id}`, admin)).status).toBe(200);
    expect((await call(url(), 'DELETE', `/bots/${other.id}`, admin)).status).toBe(200);
    // A path id that is not digits is another (unknown) URL.
    expect((await call(url(), 'DELETE', '/bots/abc', admin)).status).toBe(404);
  });

  describe('bot storage', () => {
    let bot: TestUser;
    beforeAll(async () => {
      bot = await createBot(alice);
    });

    it('puts, gets and removes entries as the bots library does', async () => {
      const put = await call(url(), 'PUT', '/bot_storage', bot, {
        storage: { number: '0', message_id: 'null' },
      });
      expect(put.status).toBe(200);
      expect((await call(url(), 'GET', '/bot_storage', bot, { keys: ['number'] })).body.storage).toEqual({
        number: '0',
      });
      await call(url(), 'PUT', '/bot_storage', bot, { storage: { number: '1' } });
      expect((await call(url(), 'GET', '/bot_storage', bot)).body.storage).toEqual({
        number: '1',
        message_id: 'null',
      });
      // Storage is per account: another bot sees none of it.
      const other = await createBot(alice);
      expect((await call(url(), 'GET', '/bot_storage', other)).body.storage).toEqual({});

      const missing = await call(url(), 'GET', '/bot_storage', bot, { keys: ['number', 'nothing'] });
      expect([missing.status, missing.body.msg]).toEqual([400, 'Key does not exist.']);
      const removeMissing = await call(url(), 'DELETE', '/bot_storage', bot, { keys: ['number', 'nothing'] });
      expect(removeMissing.body.msg).toBe('Key does not exist.');
      // All or none: the existing key survived the refused removal.
      expect((await call(url(), 'GET', '/bot_storage', bot, { keys: ['number'] })).status).toBe(200);
      await call(url(), 'DELETE', '/bot_storage', bot, { keys: ['number'] });
      expect((await call(url(), 'GET', '/bot_storage', bot)).body.storage).toEqual({ message_id: 'null' });
      await call(url(), 'DELETE', '/bot_storage', bot);
      expect((await call(url(), 'GET', '/bot_storage', bot)).body.storage).toEqual({});
    });

    it('refuses values that are not strings, and storage past the size limit', async () => {
      const notString = await call(url(), 'PUT', '/bot_storage', bot, { storage: { n: 1 } });
      expect(notString.status).toBe(400);
      expect(notString.body.msg).toMatch(/^Invalid storage\.n/);
      expect((await call(url(), 'PUT', '/bot_storage', bot, {})).body.code).toBe('REQUEST_VARIABLE_MISSING');

      const big = 'x'.repeat(1_000_000);
      // One entry per request: a form body is limited to 2 MB.
      for (let i = 0; i < 9; i++)
        expect((await call(url(), 'PUT', '/bot_storage', bot, { storage: { [`k${i}`]: big } })).status).toBe(
          200,
        );
      // 9 × (2 + 1,000,000) stored; one more million and two keys' characters passes the limit.
      const over = await call(url(), 'PUT', '/bot_storage', bot, { storage: { k9: big, extra: 'abc' } });
      expect(over.body.msg).toBe(
        'Request exceeds storage limit by 28 characters. The limit is 10000000 characters.',
      );
      expect((await call(url(), 'GET', '/bot_storage', bot, { keys: ['extra'] })).body.msg).toBe(
        'Key does not exist.',
      );
      // Replacing a value counts its new size only.
      expect((await call(url(), 'PUT', '/bot_storage', bot, { storage: { k0: big } })).status).toBe(200);
    });
  });
});
