import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { createDatabase, exec } from '@muse/core';
import { expectZulipSchema } from './zulip-schema.ts';

/** Zulip's narrow grammar (lib/narrow.ts) over HTTP: GET /messages, matches_narrow, flags/narrow, narrowed queues. */
describe('narrows and search', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const ids: Record<string, number> = {};
  let kitchenId: number;
  const url = () => stack.chatUrl;

  const send = async (from: TestUser, params: Record<string, unknown>) => {
    const sent = await call(url(), 'POST', '/messages', from, params);
    expect(sent.status).toBe(200);
    return sent.body.id as number;
  };
  /** Ids of bob's (or `who`'s) messages of a narrow, oldest first. */
  const found = async (narrow: unknown[], who: TestUser = bob, extra: Record<string, unknown> = {}) => {
    const reply = await call(url(), 'GET', '/messages', who, {
      anchor: 'newest',
      num_before: 100,
      num_after: 0,
      narrow,
      ...extra,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expectZulipSchema('/messages', 'get', reply.body);
    return (reply.body.messages as { id: number }[]).map((m) => m.id);
  };
  const refused = async (narrow: unknown[], who: TestUser = bob) => {
    const reply = await call(url(), 'GET', '/messages', who, { anchor: 'newest', num_before: 10, narrow });
    expect(reply.status).toBe(400);
    return { code: reply.body.code, msg: reply.body.msg };
  };

  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    carol = await makeUser(stack);
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'kitchen' }, { name: 'lounge' }],
      principals: [alice.id, bob.id],
    });
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'secret' }],
      invite_only: true,
    });
    const streams = await call(url(), 'GET', '/get_stream_id', bob, { stream: 'kitchen' });
    kitchenId = streams.body.stream_id as number;
    ids.lunch = await send(alice, {
      type: 'stream',
      to: 'kitchen',
      topic: 'lunch',
      content: 'The quick brown foxes jump over the lazy dog',
    });
    ids.link = await send(bob, {
      type: 'stream',
      to: 'kitchen',
      topic: '✔ deploy',
      content: 'Deployed, see https://example.com/notes',
    });
    ids.dm = await send(alice, {
      type: 'direct',
      to: JSON.stringify([bob.id]),
      content: 'psst, a secret word',
    });
    ids.group = await send(alice, {
      type: 'direct',
      to: JSON.stringify([bob.id, carol.id]),
      content: 'hello group',
    });
    ids.secret = await send(alice, { type: 'stream', to: 'secret', topic: 't', content: 'hidden pizza' });
    ids.mention = await send(alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'Pizza plans',
      content: 'ok? pizza tonight',
    });
    ids.mention2 = await send(alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'Pizza plans',
      content: `@**${await fullName(bob)}** pizza brown`,
    });
  });
  afterAll(() => stack.stop());

  async function fullName(user: TestUser): Promise<string> {
    const me = await call(url(), 'GET', '/users/me', user);
    return me.body.full_name as string;
  }

  it('channel (name, id, legacy stream), topic, sender (email, id, me), negation, legacy pairs and the dict form', async () => {
    expect(await found([['stream', 'kitchen']])).toEqual([ids.lunch, ids.link]);
    expect(await found([{ operator: 'channel', operand: kitchenId }])).toEqual([ids.lunch, ids.link]);
    expect(
      await found([
        { operator: 'channel', operand: 'kitchen' },
        { operator: 'topic', operand: 'LUNCH' },
      ]),
    ).toEqual([ids.lunch]);
    expect(await found([['subject', 'lunch']])).toEqual([ids.lunch]);
    expect(
      await found([
        { operator: 'sender', operand: alice.email },
        { operator: 'channel', operand: 'kitchen' },
      ]),
    ).toEqual([ids.lunch]);
    expect(await found([{ operator: 'sender', operand: bob.id }])).toEqual([ids.link]);
    expect(await found([{ operator: 'sender', operand: 'me' }])).toEqual([ids.link]);
    expect(
      await found([
        { operator: 'channel', operand: 'kitchen' },
        { operator: 'topic', operand: 'lunch', negated: true },
      ]),
    ).toEqual([ids.link]);
    // A negated channel keeps direct messages (they are in no channel).
    expect(
      await found([
        { operator: 'channel', operand: 'kitchen', negated: true },
        { operator: 'channel', operand: 'lounge', negated: true },
        { operator: 'sender', operand: alice.email },
      ]),
    ).toEqual([ids.dm, ids.group]);
    expect(
      await found([
        { operator: 'is', operand: 'dm', negated: true },
        { operator: 'sender', operand: 'me' },
      ]),
    ).toEqual([ids.link]);
  });

  it('dm and pm-with (emails, ids), dm-including and group-pm-with, is:dm and is:private', async () => {
    expect(await found([['pm-with', alice.email]])).toEqual([ids.dm]);
    expect(await found([{ operator: 'dm', operand: [alice.id] }])).toEqual([ids.dm]);
    expect(await found([{ operator: 'dm', operand: [alice.id, carol.id] }])).toEqual([ids.group]);
    expect(await found([['pm-with', `${carol.email},${alice.email}`]])).toEqual([ids.group]);
    expect(await found([{ operator: 'dm-including', operand: carol.id }])).toEqual([ids.group]);
    expect(await found([['group-pm-with', carol.email]])).toEqual([ids.group]);
    // Zulip reads `_` as `-` in operators; zulip-terminal 0.7.0 opens a conversation with `pm_with`.
    expect(await found([['pm_with', alice.email]])).toEqual([ids.dm]);
    expect(await found([['group_pm_with', carol.email]])).toEqual([ids.group]);
    expect(await found([{ operator: 'dm_including', operand: carol.id }])).toEqual([ids.group]);
    expect(await found([['is', 'dm']])).toEqual([ids.dm, ids.group]);
    expect(await found([['is', 'private']])).toEqual([ids.dm, ids.group]);
    expect(await found([{ operator: 'dm', operand: [alice.id] }], carol)).toEqual([]);
  });

  it('a page shows each message as GET /messages/{id} does: its sender, direct recipients and channel, read with the page', async () => {
    const page = await call(url(), 'GET', '/messages', bob, {
      anchor: 'newest',
      num_before: 100,
      narrow: [],
    });
    expect(page.status).toBe(200);
    const messages = page.body.messages as Record<string, unknown>[];
    expect(messages.map((m) => m.id)).toEqual(expect.arrayContaining([ids.lunch, ids.dm, ids.group]));
    for (const message of messages) {
      const alone = await call(url(), 'GET', `/messages/${message.id as number}`, bob);
      expect(message).toEqual(alone.body.message);
    }
    const byId = new Map(messages.map((m) => [m.id, m]));
    expect(byId.get(ids.lunch)).toMatchObject({ display_recipient: 'kitchen', stream_id: kitchenId });
    const group = byId.get(ids.group)!;
    const people = [alice, bob, carol].map(async (user) => {
      const shown = (await call(url(), 'GET', `/users/${user.id}`, bob)).body.user as Record<string, unknown>;
      return { id: user.id, email: shown.email, full_name: shown.full_name, is_mirror_dummy: false };
    });
    const recipients = [...(group.display_recipient as { id: number }[])].sort((x, y) => x.id - y.id);
    expect(recipients).toEqual(await Promise.all(people));
    expect(group).toMatchObject({ sender_id: alice.id, sender_full_name: await fullName(alice) });
  });

  it('is: starred, mentioned, unread, resolved, followed, muted, alerted; has: link, reaction', async () => {
    await call(url(), 'POST', '/messages/flags', bob, { messages: [ids.lunch], op: 'add', flag: 'starred' });
    expect(await found([['is', 'starred']])).toEqual([ids.lunch]);
    expect(await found([['is', 'mentioned']])).toEqual([ids.mention2]);
    expect(await found([['is', 'resolved']])).toEqual([ids.link]);
    expect(await found([['has', 'link']])).toEqual([ids.link]);
    await call(url(), 'POST', `/messages/${ids.dm}/reactions`, bob, { emoji_name: 'smile' });
    expect(await found([['has', 'reaction']])).toEqual([ids.dm]);
    const unread = await found([['is', 'unread']]);
    expect(unread).toContain(ids.dm);
    expect(unread).not.toContain(ids.link);
    await call(url(), 'POST', '/messages/flags', bob, { messages: [ids.dm], op: 'add', flag: 'read' });
    expect(
      await found([
        ['is', 'unread'],
        ['is', 'dm'],
      ]),
    ).toEqual([ids.group]);
    await call(url(), 'POST', '/user_topics', bob, {
      stream_id: kitchenId,
      topic: 'lunch',
      visibility_policy: 3,
    });
    expect(await found([['is', 'followed']])).toEqual([ids.lunch]);
    await call(url(), 'POST', '/user_topics', bob, {
      stream_id: kitchenId,
      topic: '✔ deploy',
      visibility_policy: 1,
    });
    expect(await found([['is', 'muted']])).toEqual([ids.link]);
    await call(url(), 'POST', '/users/me/alert_words', bob, { alert_words: ['tonight'] });
    expect(await found([['is', 'alerted']])).toEqual([ids.mention]);
    expect(await found([['has', 'attachment']])).toEqual([]);
    expect(await found([['has', 'image']])).toEqual([]);
  });

  it('id, near and with; channels:public reads public history the reader never received', async () => {
    expect(await found([{ operator: 'id', operand: ids.lunch }])).toEqual([ids.lunch]);
    expect(
      await found([
        ['near', String(ids.lunch)],
        ['channel', 'kitchen'],
      ]),
    ).toEqual([ids.lunch, ids.link]);
    expect(await found([{ operator: 'with', operand: ids.group }])).toEqual([ids.group]);
    expect(await found([{ operator: 'with', operand: ids.lunch }])).toEqual([ids.lunch]);
    // carol never joined lounge: channels:public shows its history too, nothing of secret.
    expect(await found([['channels', 'public']], carol)).toEqual([
      ids.lunch,
      ids.link,
      ids.mention,
      ids.mention2,
    ]);
    expect(
      await found(
        [
          ['streams', 'public'],
          ['topic', 'lunch'],
        ],
        carol,
      ),
    ).toEqual([ids.lunch]);
    expect(await found([['channels', 'public']], carol)).not.toContain(ids.secret);
  });

  it("Zulip's errors for bad operators and operands; a private channel answers as one that does not exist", async () => {
    expect(await refused([['bogus', 'x']])).toEqual({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown operator',
    });
    expect(await refused([['is', 'shiny']])).toEqual({
      code: 'BAD_NARROW',
      msg: "Invalid narrow operator: unknown 'is' operand",
    });
    expect(await refused([['has', 'cats']])).toEqual({
      code: 'BAD_NARROW',
      msg: "Invalid narrow operator: unknown 'has' operand",
    });
    expect(await refused([['channels', 'all']])).toEqual({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown channels operand',
    });
    expect(await refused([['sender', 'nobody@example.com']])).toEqual({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown user',
    });
    expect((await refused([['dm', 'nobody@example.com']])).msg).toBe(
      'Invalid narrow operator: unknown user in nobody@example.com',
    );
    expect(await refused([{ operator: 'search', operand: '  ' }])).toEqual({
      code: 'BAD_REQUEST',
      msg: 'elem["operand"] cannot be blank',
    });
    expect(await refused([{ operator: 'topic', operand: 3 }])).toEqual({
      code: 'BAD_REQUEST',
      msg: 'elem["operand"] is not a string',
    });
    expect(await refused([{ operator: 'dm', operand: [{ id: 1 }] }])).toEqual({
      code: 'BAD_REQUEST',
      msg: 'elem["operand"] is not a string or an integer list',
    });
    expect(await refused([['id', 'abc']])).toEqual({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: Invalid message ID',
    });
    const missing = await refused([['channel', 'no-such-channel']]);
    expect(missing).toEqual({ code: 'BAD_NARROW', msg: 'Invalid narrow operator: unknown channel' });
    expect(await refused([['channel', 'secret']])).toEqual(missing);
    const secretId = (await call(url(), 'GET', '/get_stream_id', alice, { stream: 'secret' })).body.stream_id;
    expect(await refused([{ operator: 'channel', operand: secretId }])).toEqual(missing);
    expect(await refused([{ operator: 'channel', operand: 999999 }])).toEqual(missing);
    // The subscriber sees it.
    expect(await found([['channel', 'secret']], alice)).toEqual([ids.secret]);
  });

  it('include_anchor, message_ids and anchor_date', async () => {
    const around = await call(url(), 'GET', '/messages', bob, {
      anchor: ids.link,
      include_anchor: false,
      num_before: 1,
      num_after: 1,
      narrow: [['channel', 'kitchen']],
    });
    expect((around.body.messages as { id: number }[]).map((m) => m.id)).toEqual([ids.lunch]);
    expect(around.body.found_anchor).toBe(true);
    const byIds = await call(url(), 'GET', '/messages', carol, {
      message_ids: [ids.lunch, ids.dm, ids.secret, ids.group],
    });
    expect(byIds.status).toBe(200);
    // carol: kitchen's history (public), her group DM; not bob's DM nor the private channel.
    expect((byIds.body.messages as { id: number }[]).map((m) => m.id)).toEqual([ids.lunch, ids.group]);
    expect(byIds.body).not.toHaveProperty('anchor');
    expect(byIds.body).not.toHaveProperty('ignored_parameters_unsupported');
    const mixed = await call(url(), 'GET', '/messages', carol, {
      message_ids: [ids.lunch],
      anchor: 'newest',
    });
    expect(mixed.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Unsupported parameter combination: message_ids, anchor',
    });
    const future = await call(url(), 'GET', '/messages', bob, {
      anchor: 'date',
      anchor_date: '2999-01-01T00:00:00Z',
      num_before: 1,
      narrow: [['channel', 'kitchen']],
    });
    expect(future.body.anchor).toBe(10_000_000_000_000_000);
    expect((future.body.messages as { id: number }[]).map((m) => m.id)).toEqual([ids.link]);
    const past = await call(url(), 'GET', '/messages', bob, {
      anchor: 'date',
      anchor_date: '2000-01-01T00:00:00Z',
      num_after: 0,
      narrow: [['channel', 'kitchen']],
    });
    expect(past.body).toMatchObject({ anchor: ids.lunch, found_anchor: true });
    expect(past.body).not.toHaveProperty('ignored_parameters_unsupported');
    const bad = await call(url(), 'GET', '/messages', bob, { anchor: 'date', anchor_date: 'soon' });
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid anchor_date' });
  });

  it('search: stemmed words, quoted phrases, topics, highlights; paging by anchor; an edit is found by its new words only', async () => {
    expect(await found([['search', 'fox']])).toEqual([ids.lunch]);
    expect(await found([['search', '"brown foxes"']])).toEqual([ids.lunch]);
    expect(await found([['search', '"foxes brown"']])).toEqual([]);
    expect(await found([['search', 'pizza']])).toEqual([ids.mention, ids.mention2]);
    expect(await found([['search', 'pizza']], alice)).toEqual([ids.secret, ids.mention, ids.mention2]);
    expect(await found([['search', 'deploy']])).toEqual([ids.link]);
    // A direct message (the reader's flags row), two terms at once, a search beside other terms.
    expect(await found([['search', 'secret']])).toEqual([ids.dm]);
    expect(await found([['search', 'secret']], carol)).toEqual([]);
    expect(
      await found([
        ['search', 'pizza'],
        ['search', 'brown'],
      ]),
    ).toEqual([ids.mention2]);
    expect(
      await found([
        ['search', 'pizza'],
        ['is', 'mentioned'],
      ]),
    ).toEqual([ids.mention2]);
    const byIds = await call(url(), 'GET', '/messages', bob, {
      message_ids: [ids.lunch, ids.mention, ids.dm],
      narrow: [['search', 'pizza']],
    });
    expect((byIds.body.messages as { id: number }[]).map((m) => m.id)).toEqual([ids.mention]);
    expect(
      await found([{ operator: 'search', operand: 'brown', negated: true }, ['channel', 'kitchen']]),
    ).toEqual([ids.link]);
    const hit = await call(url(), 'GET', '/messages', bob, {
      anchor: 'newest',
      num_before: 10,
      narrow: [['search', 'fox']],
    });
    expect(hit.body.messages).toEqual([
      expect.objectContaining({
        id: ids.lunch,
        match_content: '<p>The quick brown <span class="highlight">foxes</span> jump over the lazy dog</p>',
        match_subject: 'lunch',
      }),
    ]);
    const topicHit = await call(url(), 'GET', '/messages', bob, {
      anchor: 'newest',
      num_before: 10,
      narrow: [['search', 'plans']],
    });
    expect((topicHit.body.messages as { match_subject: string }[])[0]?.match_subject).toBe(
      'Pizza <span class="highlight">plans</span>',
    );
    // Paging: one at a time from the oldest.
    const first = await call(url(), 'GET', '/messages', bob, {
      anchor: 'oldest',
      num_after: 1,
      narrow: [['search', 'pizza']],
    });
    expect((first.body.messages as { id: number }[]).map((m) => m.id)).toEqual([ids.mention]);
    expect(first.body.found_newest).toBe(false);
    const next = await call(url(), 'GET', '/messages', bob, {
      anchor: ids.mention,
      include_anchor: false,
      num_after: 1,
      narrow: [['search', 'pizza']],
    });
    expect((next.body.messages as { id: number }[]).map((m) => m.id)).toEqual([ids.mention2]);
    expect(next.body.found_newest).toBe(true);
    // An edit: the old words no longer find it, the new ones do.
    const edit = await call(url(), 'PATCH', `/messages/${ids.lunch}`, alice, {
      content: 'A slow green turtle',
    });
    expect(edit.status).toBe(200);
    expect(await found([['search', 'fox']])).toEqual([]);
    expect(await found([['search', 'turtles']])).toEqual([ids.lunch]);
  });

  it('GET /messages/matches_narrow answers the given messages that match, with their highlighted matches', async () => {
    const reply = await call(url(), 'GET', '/messages/matches_narrow', bob, {
      msg_ids: [ids.mention, ids.mention2, ids.link, ids.secret],
      narrow: [['search', 'tonight']],
    });
    expect(reply.status).toBe(200);
    expectZulipSchema('/messages/matches_narrow', 'get', reply.body);
    expect(Object.keys(reply.body.messages as object)).toEqual([String(ids.mention)]);
    expect(
      (reply.body.messages as Record<string, { match_content: string }>)[String(ids.mention)]?.match_content,
    ).toContain('<span class="highlight">tonight</span>');
    const plain = await call(url(), 'GET', '/messages/matches_narrow', bob, {
      msg_ids: [ids.link, ids.dm],
      narrow: [['is', 'dm']],
    });
    expect(plain.body.messages).toEqual({
      [String(ids.dm)]: { match_content: '<p>psst, a secret word</p>', match_subject: '' },
    });
    const bad = await call(url(), 'GET', '/messages/matches_narrow', bob, {
      msg_ids: [1],
      narrow: [['x', 'y']],
    });
    expect(bad.body).toMatchObject({ code: 'BAD_NARROW' });
  });

  it('POST /messages/flags/narrow applies to the narrow, include_anchor honoured', async () => {
    const marked = await call(url(), 'POST', '/messages/flags/narrow', carol, {
      anchor: 'oldest',
      num_before: 0,
      num_after: 100,
      include_anchor: true,
      narrow: [['dm-including', alice.id]],
      op: 'add',
      flag: 'starred',
    });
    expect(marked.body).toMatchObject({
      processed_count: 1,
      updated_count: 1,
      first_processed_id: ids.group,
    });
    expect(await found([['is', 'starred']], carol)).toEqual([ids.group]);
  });

  it('a queue registered with a narrow receives only the message events matching it', async () => {
    const register = async (narrow: unknown[]) => {
      const queue = await call(url(), 'POST', '/register', bob, { event_types: ['message'], narrow });
      expect(queue.status, JSON.stringify(queue.body)).toBe(200);
      return queue.body.queue_id as string;
    };
    const dms = await register([['is', 'dm']]);
    const lounge = await register([{ operator: 'channel', operand: 'lounge' }]);
    const notLounge = await register([{ operator: 'channel', operand: 'lounge', negated: true }]);
    const inChannel = await send(alice, { type: 'stream', to: 'lounge', topic: 'q', content: 'queue test' });
    const direct = await send(alice, { type: 'direct', to: JSON.stringify([bob.id]), content: 'queue dm' });
    const events = async (queueId: string) => {
      const reply = await call(url(), 'GET', '/events', bob, {
        queue_id: queueId,
        last_event_id: -1,
        dont_block: true,
      });
      return (reply.body.events as { message: { id: number } }[]).map((e) => e.message.id);
    };
    // The DM committed after the channel message: once it is in the DM queue, both are settled.
    await expect.poll(() => events(dms)).toEqual([direct]);
    expect(await events(lounge)).toEqual([inChannel]);
    expect(await events(notLounge)).toEqual([direct]);
    const refusedQueue = await call(url(), 'POST', '/register', bob, { narrow: [['search', 'x']] });
    expect(refusedQueue.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Operator search not supported.' });
    const hidden = await call(url(), 'POST', '/register', bob, { narrow: [['channel', 'secret']] });
    expect(hidden.body).toMatchObject({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown channel',
    });
  });

  it("GET /messages/{id} and message_ids share the narrow's access rule: a private channel's message the reader may not see is Zulip's 'Invalid message(s)', one whose history they may read is theirs", async () => {
    const one = (id: number) => call(url(), 'GET', `/messages/${id}`, bob);
    const byIds = async (messageIds: number[]) => {
      const reply = await call(url(), 'GET', '/messages', bob, { message_ids: messageIds });
      expect(reply.status).toBe(200);
      return (reply.body.messages as { id: number }[]).map((m) => m.id);
    };
    const hidden = await one(ids.secret!);
    expect(hidden.status).toBe(400);
    expect(hidden.body).toEqual({ result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
    expect(await byIds([ids.secret!, ids.lunch!])).toEqual([ids.lunch]);

    // A private channel with shared history: bob, added after the message, reads it through the history.
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'vault' }],
      invite_only: true,
      history_public_to_subscribers: true,
    });
    const vault = await send(alice, { type: 'stream', to: 'vault', topic: 't', content: 'shared later' });
    expect((await one(vault)).status).toBe(400);
    const added = await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'vault' }],
      principals: [bob.id],
    });
    expect(added.status).toBe(200);
    const shown = await one(vault);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body).toMatchObject({
      raw_content: 'shared later',
      message: { id: vault, flags: ['read', 'historical'] },
    });
    expectZulipSchema('/messages/{message_id}', 'get', shown.body);
    expect(await byIds([vault, ids.secret!])).toEqual([vault]);
  });

  it('has: attachment, image and link for uploaded files (an upload is a link, as in Zulip)', async () => {
    const upload = async (name: string, body: Buffer, type: string) => {
      const form = new FormData();
      form.append('file', new Blob([body], { type }), name);
      const response = await fetch(`${url()}/api/v1/user_uploads`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${alice.email}:${alice.apiKey}`).toString('base64')}`,
        },
        body: form,
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { url: string }).url;
    };
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f4d1a40000000049454e44ae426082',
      'hex',
    );
    const file = await send(alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'files',
      content: `[notes.txt](${await upload('notes.txt', Buffer.from('notes'), 'text/plain')})`,
    });
    const image = await send(alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'files',
      content: `[dot.png](${await upload('dot.png', png, 'image/png')})`,
    });
    const plain = await send(alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'files',
      content: 'no links here',
    });
    const inFiles = [
      ['channel', 'lounge'],
      ['topic', 'files'],
    ];
    expect(await found([...inFiles, ['has', 'attachment']])).toEqual([file, image]);
    expect(await found([...inFiles, ['has', 'image']])).toEqual([image]);
    expect(await found([...inFiles, ['has', 'link']])).toEqual([file, image]);
    expect(await found([...inFiles, { operator: 'has', operand: 'link', negated: true }])).toEqual([plain]);
  });

  it('a new text-search configuration (chat.set_search_config) is used from the next statement on, by connections that searched and wrote before', async () => {
    const late = await send(alice, {
      type: 'stream',
      to: 'lounge',
      topic: 'config',
      content: 'Running late',
    });
    // The API's connection searches (and indexes a message) under English first.
    expect(await found([['search', 'run']])).toEqual([late]);
    // Set from a connection of its own, as an operator would.
    const operator = createDatabase(stack.database.url, undefined, { poolMax: 1 });
    try {
      // `simple` keeps every word as written: no stemming.
      await exec(operator, "SELECT chat.set_search_config('simple')");
      expect(await found([['search', 'run']])).toEqual([]);
      expect(await found([['search', 'running']])).toEqual([late]);
      // A message written now is indexed under `simple` too, so its exact word finds it.
      const runs = await send(alice, { type: 'stream', to: 'lounge', topic: 'config', content: 'She runs' });
      expect(await found([['search', 'runs']])).toEqual([runs]);
      const hit = await call(url(), 'GET', '/messages/matches_narrow', bob, {
        msg_ids: [late, runs],
        narrow: [['search', 'running']],
      });
      expect(hit.body.messages).toEqual({
        [String(late)]: {
          match_content: '<p><span class="highlight">Running</span> late</p>',
          match_subject: 'config',
        },
      });
      await exec(operator, "SELECT chat.set_search_config('english')");
      expect(await found([['search', 'run']])).toEqual([late, runs]);
    } finally {
      await exec(operator, "SELECT chat.set_search_config('english')");
      await operator.close();
    }
  });
});
