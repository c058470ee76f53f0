import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, chatOnPool, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

/** Endpoints stock clients call (issue 40 item 4), and a message's `client` from the User-Agent. */
describe('endpoints stock clients call', () => {
  let stack: TestStack;
  let owner: TestUser;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let loungeId: number;
  let secretId: number;
  const url = () => stack.chatUrl;
  const streamId = async (name: string, who: TestUser) =>
    (await call(url(), 'GET', '/get_stream_id', who, { stream: name })).body.stream_id as number;

  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    owner = await makeUser(stack, { role: 100 });
    admin = await makeUser(stack, { role: 200 });
    alice = await makeUser(stack, { name: 'Alice Example' });
    bob = await makeUser(stack);
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'lounge' }],
      principals: [alice.id, bob.id],
    });
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'hideout' }],
      invite_only: true,
    });
    loungeId = await streamId('lounge', alice);
    secretId = await streamId('hideout', alice);
  });
  afterAll(() => stack.stop());

  it("a message's client is the sending client's name from its User-Agent", async () => {
    const sent = await call(
      url(),
      'POST',
      '/messages',
      alice,
      { type: 'stream', to: 'lounge', topic: 'ua', content: 'from the terminal' },
      { 'User-Agent': 'ZulipTerminal/0.7.0 (Linux; x86_64) ZulipPython/0.9.1' },
    );
    const read = await call(url(), 'GET', `/messages/${sent.body.id as number}`, bob);
    expect((read.body.message as { client: string }).client).toBe('ZulipTerminal');
    const python = await call(
      url(),
      'POST',
      '/messages',
      alice,
      { type: 'direct', to: JSON.stringify([bob.id]), content: 'from python' },
      { 'User-Agent': 'ZulipPython/0.9.1 (Ubuntu; 24.04)' },
    );
    const dm = await call(url(), 'GET', `/messages/${python.body.id as number}`, bob);
    expect((dm.body.message as { client: string }).client).toBe('ZulipPython');
  });

  it('POST /messages/render renders Markdown as a message, without sending it', async () => {
    const rendered = await call(url(), 'POST', '/messages/render', bob, {
      content: '**bold** @**Alice Example** #**lounge**',
    });
    expect(rendered.status).toBe(200);
    expectZulipSchema('/messages/render', 'post', rendered.body);
    expect(rendered.body.rendered).toContain('<strong>bold</strong>');
    expect(rendered.body.rendered).toContain(`data-user-id="${alice.id}"`);
    expect(rendered.body.rendered).toContain(`data-stream-id="${loungeId}"`);
    const tooLong = await call(url(), 'POST', '/messages/render', bob, { content: 'x'.repeat(10001) });
    expect(tooLong.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'content is too long (limit: 10000 characters)',
    });
    const before = await call(url(), 'GET', '/messages', bob, { anchor: 'newest', num_before: 1 });
    expect((before.body.messages as { content: string }[])[0]?.content).not.toContain(
      '<strong>bold</strong>',
    );
  });

  it('GET /streams/{id}/members and GET /users/{user_id}/subscriptions/{stream_id}', async () => {
    const members = await call(url(), 'GET', `/streams/${loungeId}/members`, bob);
    expect(members.status).toBe(200);
    expectZulipSchema('/streams/{stream_id}/members', 'get', members.body);
    expect(members.body.subscribers).toEqual([alice.id, bob.id].sort((a, b) => a - b));
    // A private channel the caller may not see answers as one that does not exist.
    const hidden = await call(url(), 'GET', `/streams/${secretId}/members`, bob);
    const missing = await call(url(), 'GET', '/streams/999999/members', bob);
    expect([hidden.status, hidden.body]).toEqual([missing.status, missing.body]);
    expect(hidden.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid channel ID' });
    expect((await call(url(), 'GET', `/streams/${secretId}/members`, admin)).body.subscribers).toEqual([
      alice.id,
    ]);

    const yes = await call(url(), 'GET', `/users/${bob.id}/subscriptions/${loungeId}`, alice);
    expectZulipSchema('/users/{user_id}/subscriptions/{stream_id}', 'get', yes.body);
    expect(yes.body.is_subscribed).toBe(true);
    expect(
      (await call(url(), 'GET', `/users/${admin.id}/subscriptions/${loungeId}`, alice)).body.is_subscribed,
    ).toBe(false);
    expect((await call(url(), 'GET', `/users/999999/subscriptions/${loungeId}`, alice)).body).toMatchObject({
      msg: 'No such user',
    });
    expect(
      (await call(url(), 'GET', `/users/${alice.id}/subscriptions/${secretId}`, bob)).body,
    ).toMatchObject({
      msg: 'Invalid channel ID',
    });
  });

  it('PATCH /user_groups/{id} renames, describes and changes permissions, with an update event', async () => {
    const created = await call(url(), 'POST', '/user_groups/create', alice, {
      name: 'cooks',
      description: 'Who cooks',
      members: [alice.id],
    });
    const groupId = created.body.group_id as number;
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['user_group'] });
    const patched = await call(url(), 'PATCH', `/user_groups/${groupId}`, alice, {
      name: 'chefs',
      description: 'Who cooks well',
      can_mention_group: { new: { direct_members: [alice.id], direct_subgroups: [] } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expectZulipSchema('/user_groups/{user_group_id}', 'patch', patched.body);
    const events = await call(url(), 'GET', '/events', bob, {
      queue_id: queue.body.queue_id,
      last_event_id: -1,
    });
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'user_group',
        op: 'update',
        group_id: groupId,
        data: {
          name: 'chefs',
          description: 'Who cooks well',
          can_mention_group: { direct_members: [alice.id], direct_subgroups: [] },
        },
      }),
    ]);
    const groups = await call(url(), 'GET', '/user_groups', bob);
    expect(
      (groups.body.user_groups as { id: number; name: string }[]).find((g) => g.id === groupId),
    ).toMatchObject({
      name: 'chefs',
      description: 'Who cooks well',
    });
    const stale = await call(url(), 'PATCH', `/user_groups/${groupId}`, alice, {
      can_mention_group: { new: 1, old: 2 },
    });
    expect(stale.body).toMatchObject({ msg: "'old' value does not match the expected value." });
    expect((await call(url(), 'PATCH', `/user_groups/${groupId}`, bob, { name: 'mine' })).body).toMatchObject(
      {
        msg: 'Insufficient permission',
      },
    );
  });

  it('POST and DELETE /default_streams: administrators make a channel default and back', async () => {
    const defaults = async () =>
      (await call(url(), 'POST', '/register', bob, { fetch_event_types: ['default_streams'] })).body
        .realm_default_streams as number[];
    expect(await defaults()).not.toContain(loungeId);
    const added = await call(url(), 'POST', '/default_streams', admin, { stream_id: loungeId });
    expect(added.status).toBe(200);
    expectZulipSchema('/default_streams', 'post', added.body);
    expect(await defaults()).toContain(loungeId);
    expect(
      (await call(url(), 'POST', '/default_streams', admin, { stream_id: secretId })).body,
    ).toMatchObject({
      msg: 'A default channel cannot be private.',
    });
    expect(
      (await call(url(), 'DELETE', '/default_streams', bob, { stream_id: loungeId })).body,
    ).toMatchObject({
      msg: 'Must be an organization administrator',
    });
    const removed = await call(url(), 'DELETE', '/default_streams', admin, { stream_id: loungeId });
    expect(removed.status).toBe(200);
    expect(await defaults()).not.toContain(loungeId);
  });

  it('PATCH /settings/notifications changes notification settings (the legacy endpoint)', async () => {
    const changed = await call(url(), 'PATCH', '/settings/notifications', bob, {
      enable_sounds: false,
      wildcard_mentions_notify: false,
    });
    expect(changed.status).toBe(200);
    const state = await call(url(), 'POST', '/register', bob, { fetch_event_types: ['user_settings'] });
    expect(state.body.user_settings).toMatchObject({ enable_sounds: false, wildcard_mentions_notify: false });
  });

  it('POST /messages/{id}/typing tells the conversation the message is being edited', async () => {
    const sent = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'edits',
      content: 'typo',
    });
    const id = sent.body.id as number;
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['typing_edit_message'] });
    const typing = await call(url(), 'POST', `/messages/${id}/typing`, alice, { op: 'start' });
    expect(typing.status).toBe(200);
    expectZulipSchema('/messages/{message_id}/typing', 'post', typing.body);
    const events = await call(url(), 'GET', '/events', bob, {
      queue_id: queue.body.queue_id,
      last_event_id: -1,
    });
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'typing_edit_message',
        op: 'start',
        sender_id: alice.id,
        message_id: id,
        recipient: { type: 'channel', channel_id: loungeId, topic: 'edits' },
      }),
    ]);
    const hiddenMessage = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'hideout',
      topic: 't',
      content: 'x',
    });
    expect(
      (await call(url(), 'POST', `/messages/${hiddenMessage.body.id as number}/typing`, bob, { op: 'start' }))
        .body,
    ).toMatchObject({ msg: 'Invalid message(s)' });
  });

  it('DELETE /users/me deactivates the caller and their bots; never the only owner', async () => {
    const leaving = await makeUser(stack);
    const bot = await makeUser(stack, { isBot: true, botOwnerId: leaving.id });
    const gone = await call(url(), 'DELETE', '/users/me', leaving);
    expect(gone.status).toBe(200);
    expectZulipSchema('/users/me', 'delete', gone.body);
    expect((await call(url(), 'GET', '/users/me', leaving)).status).toBe(401);
    expect((await call(url(), 'GET', `/users/${bot.id}`, admin)).body.user).toMatchObject({
      is_active: false,
    });
    const last = await call(url(), 'DELETE', '/users/me', owner);
    expect(last.body).toMatchObject({
      code: 'CANNOT_DEACTIVATE_LAST_USER',
      msg: 'Cannot deactivate the only organization owner',
      is_last_owner: true,
      entity: 'organization owner',
    });
    expect((await call(url(), 'GET', '/users/me', owner)).status).toBe(200);
  });

  it('user status: POST /users/me/status, GET /users/{id}/status, user_status events and /register state', async () => {
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['user_status'] });
    const set = await call(url(), 'POST', '/users/me/status', alice, {
      status_text: ' In a meeting ',
      emoji_name: 'smile',
    });
    expect(set.status).toBe(200);
    expectZulipSchema('/users/me/status', 'post', set.body);
    const got = await call(url(), 'GET', `/users/${alice.id}/status`, bob);
    expectZulipSchema('/users/{user_id}/status', 'get', got.body);
    expect(got.body.status).toEqual({
      status_text: 'In a meeting',
      emoji_name: 'smile',
      emoji_code: expect.stringMatching(/^[0-9a-f-]+$/),
      reaction_type: 'unicode_emoji',
    });
    const events = await call(url(), 'GET', '/events', bob, {
      queue_id: queue.body.queue_id,
      last_event_id: -1,
    });
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'user_status',
        user_id: alice.id,
        status_text: 'In a meeting',
        emoji_name: 'smile',
      }),
    ]);
    await call(url(), 'POST', '/users/me/status', alice, { status_text: '' });
    expect((await call(url(), 'GET', `/users/${alice.id}/status`, bob)).body.status).toEqual({
      emoji_name: 'smile',
      emoji_code: expect.any(String),
      reaction_type: 'unicode_emoji',
    });
    const state = await call(url(), 'POST', '/register', bob, { fetch_event_types: ['user_status'] });
    expect((state.body.user_status as Record<string, unknown>)[String(alice.id)]).toMatchObject({
      emoji_name: 'smile',
    });
    await call(url(), 'POST', '/users/me/status', alice, { emoji_name: '' });
    expect((await call(url(), 'GET', `/users/${alice.id}/status`, bob)).body.status).toEqual({});
    const refusals: [Record<string, unknown>, string][] = [
      [{}, 'Client did not pass any new values.'],
      [{ status_text: 'x'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
      [{ emoji_name: 'no_such_emoji_here' }, "Emoji 'no_such_emoji_here' does not exist"],
      [
        { emoji_code: '1f604' },
        'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
      ],
    ];
    for (const [params, msg] of refusals)
      expect((await call(url(), 'POST', '/users/me/status', alice, params)).body).toMatchObject({ msg });
    expect((await call(url(), 'GET', '/users/999999/status', bob)).body).toMatchObject({
      msg: 'No such user',
    });
  });

  it('GET /messages/{id}/read_receipts: readers other than the sender who allow receipts', async () => {
    const sent = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'receipts',
      content: 'did you read this?',
    });
    const id = sent.body.id as number;
    const receipts = async (who: TestUser) =>
      (await call(url(), 'GET', `/messages/${id}/read_receipts`, who)).body;
    expect((await receipts(alice)).user_ids).toEqual([]);
    await call(url(), 'POST', '/messages/flags', bob, { messages: [id], op: 'add', flag: 'read' });
    const body = await receipts(alice);
    expectZulipSchema('/messages/{message_id}/read_receipts', 'get', body);
    expect(body.user_ids).toEqual([bob.id]);
    await call(url(), 'PATCH', '/settings', bob, { send_read_receipts: false });
    expect((await receipts(alice)).user_ids).toEqual([]);
    await call(url(), 'PATCH', '/settings', bob, { send_read_receipts: true });
    expect((await receipts(admin)).user_ids).toEqual([bob.id]);
    const hidden = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'hideout',
      topic: 't',
      content: 'x',
    });
    expect(
      (await call(url(), 'GET', `/messages/${hidden.body.id as number}/read_receipts`, bob)).body,
    ).toMatchObject({
      msg: 'Invalid message(s)',
    });
  });

  it("muted users: the muted user's messages become and arrive read; events, /register state; read receipts leave them out", async () => {
    const before = await call(url(), 'POST', '/messages', alice, {
      type: 'direct',
      to: JSON.stringify([bob.id]),
      content: 'unread before muting',
    });
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['muted_users', 'message'] });
    const muted = await call(url(), 'POST', `/users/me/muted_users/${alice.id}`, bob);
    expect(muted.status).toBe(200);
    expectZulipSchema('/users/me/muted_users/{muted_user_id}', 'post', muted.body);
    const flagsOf = async (messageId: number) =>
      ((await call(url(), 'GET', `/messages/${messageId}`, bob)).body.message as { flags: string[] }).flags;
    expect(await flagsOf(before.body.id as number)).toContain('read');
    const dm = await call(url(), 'POST', '/messages', alice, {
      type: 'direct',
      to: JSON.stringify([bob.id]),
      content: 'after muting',
    });
    const inChannel = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'muted',
      content: 'after muting, in a channel',
    });
    expect(await flagsOf(dm.body.id as number)).toContain('read');
    expect(await flagsOf(inChannel.body.id as number)).toContain('read');
    const events = await call(url(), 'GET', '/events', bob, {
      queue_id: queue.body.queue_id,
      last_event_id: -1,
    });
    const list = events.body.events as {
      type: string;
      muted_users?: { id: number }[];
      flags?: string[];
      message?: { id: number };
    }[];
    expect(list[0]).toMatchObject({
      type: 'muted_users',
      muted_users: [{ id: alice.id, timestamp: expect.any(Number) }],
    });
    expect(list.filter((e) => e.type === 'message').map((e) => e.flags)).toEqual([['read'], ['read']]);
    const state = await call(url(), 'POST', '/register', bob, { fetch_event_types: ['muted_users'] });
    expect(state.body.muted_users).toEqual([{ id: alice.id, timestamp: expect.any(Number) }]);
    // bob read alice's channel message, but muted her: her read receipts leave him out.
    expect(
      (await call(url(), 'GET', `/messages/${inChannel.body.id as number}/read_receipts`, alice)).body
        .user_ids,
    ).toEqual([]);
    expect((await call(url(), 'POST', `/users/me/muted_users/${alice.id}`, bob)).body).toMatchObject({
      msg: 'User already muted',
    });
    expect((await call(url(), 'POST', `/users/me/muted_users/${bob.id}`, bob)).body).toMatchObject({
      msg: 'Cannot mute self',
    });
    expect((await call(url(), 'POST', '/users/me/muted_users/999999', bob)).body).toMatchObject({
      msg: 'No such user',
    });
    const unmuted = await call(url(), 'DELETE', `/users/me/muted_users/${alice.id}`, bob);
    expect(unmuted.status).toBe(200);
    expect((await call(url(), 'DELETE', `/users/me/muted_users/${alice.id}`, bob)).body).toMatchObject({
      msg: 'User is not muted',
    });
    const later = await call(url(), 'POST', '/messages', alice, {
      type: 'direct',
      to: JSON.stringify([bob.id]),
      content: 'unmuted',
    });
    expect(await flagsOf(later.body.id as number)).not.toContain('read');
  });

  it('linkifiers: CRUD and order by administrators, realm_linkifiers events, applied by the renderer', async () => {
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['realm_linkifiers'] });
    const created = await call(url(), 'POST', '/realm/filters', admin, {
      pattern: '#(?P<id>[0-9]+)',
      url_template: 'https://github.com/zulip/zulip/issues/{id}',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expectZulipSchema('/realm/filters', 'post', created.body);
    const issues = created.body.id as number;
    const jira = (
      await call(url(), 'POST', '/realm/filters', admin, {
        pattern: 'JIRA-(?P<key>[0-9]+)',
        url_template: 'https://jira.example.com/browse/JIRA-{key}',
      })
    ).body.id as number;
    const listed = await call(url(), 'GET', '/realm/linkifiers', bob);
    expectZulipSchema('/realm/linkifiers', 'get', listed.body);
    expect(listed.body.linkifiers).toEqual([
      { id: issues, pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' },
      {
        id: jira,
        pattern: 'JIRA-(?P<key>[0-9]+)',
        url_template: 'https://jira.example.com/browse/JIRA-{key}',
      },
    ]);
    const events = await call(url(), 'GET', '/events', bob, {
      queue_id: queue.body.queue_id,
      last_event_id: -1,
    });
    expect((events.body.events as { type: string }[]).map((e) => e.type)).toEqual([
      'realm_linkifiers',
      'realm_linkifiers',
    ]);

    const sent = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'links',
      content: 'Fixes #123 and JIRA-7, not `#456` nor abc#9 nor [#77](https://example.com)',
    });
    const read = await call(url(), 'GET', `/messages/${sent.body.id as number}`, bob);
    expect((read.body.message as { content: string }).content).toBe(
      '<p>Fixes <a href="https://github.com/zulip/zulip/issues/123">#123</a> and ' +
        '<a href="https://jira.example.com/browse/JIRA-7">JIRA-7</a>, not <code>#456</code> nor abc#9 nor ' +
        '<a href="https://example.com">#77</a></p>',
    );
    const preview = await call(url(), 'POST', '/messages/render', bob, { content: '#5' });
    expect(preview.body.rendered).toBe('<p><a href="https://github.com/zulip/zulip/issues/5">#5</a></p>');

    const reordered = await call(url(), 'PATCH', '/realm/linkifiers', admin, {
      ordered_linkifier_ids: [jira, issues],
    });
    expect(reordered.status).toBe(200);
    expect(
      ((await call(url(), 'GET', '/realm/linkifiers', bob)).body.linkifiers as { id: number }[]).map(
        (l) => l.id,
      ),
    ).toEqual([jira, issues]);
    expect(
      (await call(url(), 'PATCH', '/realm/linkifiers', admin, { ordered_linkifier_ids: [jira] })).body,
    ).toMatchObject({
      msg: 'The ordered list must enumerate all existing linkifiers exactly once',
    });
    const updated = await call(url(), 'PATCH', `/realm/filters/${issues}`, admin, {
      pattern: '#(?P<id>[0-9]+)',
      url_template: 'https://tracker.example.com/{id}',
    });
    expect(updated.status).toBe(200);
    expect((await call(url(), 'POST', '/messages/render', bob, { content: '#5' })).body.rendered).toBe(
      '<p><a href="https://tracker.example.com/5">#5</a></p>',
    );
    const refusals: [Record<string, string>, string][] = [
      [{ pattern: '(', url_template: 'https://x.example/' }, 'Bad regular expression'],
      [{ pattern: '(?P<a>a+)+$', url_template: 'https://x.example/{a}' }, 'nested repetition'],
      [
        { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.example/{other}' },
        'Group "other" in URL template',
      ],
      [{ pattern: '#(?P<id>[0-9]+)', url_template: 'javascript:alert({id})' }, 'Invalid URL template.'],
      [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.example/{?id}' }, 'Invalid URL template.'],
    ];
    for (const [params, msg] of refusals)
      expect((await call(url(), 'POST', '/realm/filters', admin, params)).body.msg).toContain(msg);
    expect(
      (await call(url(), 'POST', '/realm/filters', bob, { pattern: 'x', url_template: 'https://x.example/' }))
        .body,
    ).toMatchObject({ msg: 'Must be an organization administrator' });
    const removed = await call(url(), 'DELETE', `/realm/filters/${jira}`, admin);
    expect(removed.status).toBe(200);
    expect((await call(url(), 'DELETE', `/realm/filters/${jira}`, admin)).body).toMatchObject({
      msg: 'Linkifier not found.',
    });
    const state = await call(url(), 'POST', '/register', bob, { fetch_event_types: ['realm_linkifiers'] });
    expect(state.body.realm_linkifiers).toEqual([
      { id: issues, pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' },
    ]);
  });

  it('a linkifier made through one process is applied by another that had rendered before', async () => {
    const other = await chatOnPool(stack, { poolMax: 1 });
    try {
      const render = async (at: string) =>
        (await call(at, 'POST', '/messages/render', bob, { content: 'see TKT-9' })).body.rendered;
      expect(await render(other.url)).toBe('<p>see TKT-9</p>');
      const created = await call(url(), 'POST', '/realm/filters', admin, {
        pattern: 'TKT-(?P<n>[0-9]+)',
        url_template: 'https://tickets.example.com/{n}',
      });
      expect(created.status).toBe(200);
      expect(await render(other.url)).toBe('<p>see <a href="https://tickets.example.com/9">TKT-9</a></p>');
    } finally {
      await other.close();
    }
  });
});
