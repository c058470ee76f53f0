import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  waitForEvents,
  type QueuedEvent,
  type TestUser,
} from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

describe('the message lifecycle, mentions and Markdown (issue 26, items 2 and 3)', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const url = () => stack.chatUrl;
  const send = async (from: TestUser, params: Record<string, unknown>) => {
    const reply = await call(url(), 'POST', '/messages', from, params);
    expect(reply.status).toBe(200);
    return reply.body.id as number;
  };
  const register = async (user: TestUser, params: Record<string, unknown> = {}) =>
    (await call(url(), 'POST', '/register', user, { apply_markdown: true, ...params })).body
      .queue_id as string;
  const eventsOf = (user: TestUser, queue: string, type: string, n = 1) =>
    waitForEvents(url(), user, queue, (events) => events.filter((e) => e.type === type).length >= n).then(
      (events) => events.filter((e) => e.type === type),
    );
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    alice = await makeUser(stack, { name: 'Alice Lifecycle' });
    bob = await makeUser(stack, { name: 'Bob Lifecycle' });
    carol = await makeUser(stack, { name: 'Carol Lifecycle' });
  });
  afterAll(() => stack.stop());

  it("GET /messages/{id} gives the message and its Markdown; others' messages stay hidden", async () => {
    const id = await send(alice, { type: 'direct', to: [bob.id], content: 'hello **bob**' });
    const { status, body } = await call(url(), 'GET', `/messages/${id}`, bob);
    expect(status).toBe(200);
    expect(body.raw_content).toBe('hello **bob**');
    expect(body.message).toMatchObject({ id, content: '<p>hello <strong>bob</strong></p>', flags: [] });
    expectZulipSchema('/messages/{message_id}', 'get', body);
    const raw = await call(url(), 'GET', `/messages/${id}`, bob, { apply_markdown: false });
    expect(raw.body.message).toMatchObject({ content: 'hello **bob**', content_type: 'text/x-markdown' });
    const hidden = await call(url(), 'GET', `/messages/${id}`, carol);
    expect(hidden.status).toBe(400);
    expect(hidden.body.msg).toBe('Invalid message(s)');
    expect((await call(url(), 'GET', '/messages/999999999', bob)).status).toBe(400);
  });

  it('PATCH edits the content (the sender only), keeps the history, and sends update_message', async () => {
    const id = await send(alice, { type: 'stream', to: 'general', topic: 'edits', content: 'first' });
    const queue = await register(bob, { event_types: ['update_message'] });
    const denied = await call(url(), 'PATCH', `/messages/${id}`, bob, { content: 'hijack' });
    expect(denied.status).toBe(400);
    expect(denied.body.msg).toBe("You don't have permission to edit this message");
    const edited = await call(url(), 'PATCH', `/messages/${id}`, alice, { content: 'second' });
    expect(edited.status).toBe(200);
    expectZulipSchema('/messages/{message_id}', 'patch', edited.body);
    const [event] = await eventsOf(bob, queue, 'update_message');
    expect(event).toMatchObject({
      message_id: id,
      content: 'second',
      rendered_content: '<p>second</p>',
      orig_content: 'first',
      flags: [],
    });
    expectZulipSchema('/events', 'get', { result: 'success', msg: '', queue_id: queue, events: [event] });
    const history = await call(url(), 'GET', `/messages/${id}/history`, bob);
    expectZulipSchema('/messages/{message_id}/history', 'get', history.body);
    expect((history.body.message_history as { content: string }[]).map((h) => h.content)).toEqual([
      'first',
      'second',
    ]);
    const got = await call(url(), 'GET', `/messages/${id}`, bob);
    expect(got.body.message).toMatchObject({
      content: '<p>second</p>',
      last_edit_timestamp: expect.any(Number),
    });
    const nothing = await call(url(), 'PATCH', `/messages/${id}`, alice, {});
    expect(nothing.body.msg).toBe('Nothing to change');
  });

  it('moves a whole topic with propagate_mode=change_all', async () => {
    const a = await send(alice, { type: 'stream', to: 'general', topic: 'old name', content: 'one' });
    const b = await send(bob, { type: 'stream', to: 'general', topic: 'old name', content: 'two' });
    const moved = await call(url(), 'PATCH', `/messages/${b}`, carol, {
      topic: 'new name',
      propagate_mode: 'change_all',
    });
    expect(moved.status).toBe(200);
    const topics = await Promise.all([a, b].map((id) => call(url(), 'GET', `/messages/${id}`, alice)));
    expect(topics.map((t) => (t.body.message as { subject: string }).subject)).toEqual([
      'new name',
      'new name',
    ]);
    const dm = await send(alice, { type: 'direct', to: [bob.id], content: 'private' });
    const refused = await call(url(), 'PATCH', `/messages/${dm}`, alice, { topic: 'x' });
    expect(refused.body.msg).toBe('Direct messages cannot have topics.');
  });

  it('reactions: add and remove with events; duplicates, unknown emoji and missing reactions are errors', async () => {
    const id = await send(alice, { type: 'direct', to: [bob.id], content: 'react to me' });
    const queue = await register(alice, { event_types: ['reaction'] });
    const added = await call(url(), 'POST', `/messages/${id}/reactions`, bob, {
      emoji_name: 'thumbs_up',
      emoji_code: '1f44d',
    });
    expect(added.status).toBe(200);
    expectZulipSchema('/messages/{message_id}/reactions', 'post', added.body);
    const again = await call(url(), 'POST', `/messages/${id}/reactions`, bob, { emoji_name: '+1' });
    expect(again.body.msg).toBe('Reaction already exists.');
    const unknown = await call(url(), 'POST', `/messages/${id}/reactions`, bob, {
      emoji_name: 'no_such_emoji_xyz',
    });
    expect(unknown.body.msg).toBe("Emoji 'no_such_emoji_xyz' does not exist");
    const badCode = await call(url(), 'POST', `/messages/${id}/reactions`, bob, {
      emoji_name: 'x',
      emoji_code: 'zzzz',
    });
    expect(badCode.body.msg).toBe('Invalid emoji code.');
    // A valid code carries one of its own names: never a free text stored for every reader.
    for (const emoji_name of ['x'.repeat(1_000_000), '<img src=x onerror=alert(1)>', 'heart']) {
      const named = await call(url(), 'POST', `/messages/${id}/reactions`, bob, {
        emoji_name,
        emoji_code: '1f603',
      });
      expect([named.status, named.body.msg]).toEqual([400, 'Invalid emoji name.']);
    }
    const extra = await call(url(), 'POST', `/messages/${id}/reactions`, bob, {
      emoji_name: 'zulip!',
      emoji_code: 'zulip',
      reaction_type: 'zulip_extra_emoji',
    });
    expect([extra.status, extra.body.msg]).toEqual([400, 'Invalid emoji name.']);
    // An alias of the same emoji is accepted, as the name the client sent.
    const alias = await call(url(), 'POST', `/messages/${id}/reactions`, bob, {
      emoji_name: 'smiley',
      emoji_code: '1f603',
    });
    expect(alias.status).toBe(200);
    await call(url(), 'DELETE', `/messages/${id}/reactions`, bob, { emoji_name: 'smiley' });
    const [event] = await eventsOf(alice, queue, 'reaction');
    expect(event).toMatchObject({
      op: 'add',
      message_id: id,
      user_id: bob.id,
      emoji_code: '1f44d',
      reaction_type: 'unicode_emoji',
    });
    const got = await call(url(), 'GET', `/messages/${id}`, alice);
    expect((got.body.message as { reactions: unknown[] }).reactions).toEqual([
      { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji', user_id: bob.id },
    ]);
    const removed = await call(url(), 'DELETE', `/messages/${id}/reactions`, bob, {
      emoji_name: 'thumbs_up',
    });
    expect(removed.status).toBe(200);
    const missing = await call(url(), 'DELETE', `/messages/${id}/reactions`, bob, {
      emoji_name: 'thumbs_up',
    });
    expect(missing.body.msg).toBe("Reaction doesn't exist.");
  });

  it('flags: marking read and unread updates the unread counts and sends update_message_flags', async () => {
    const dave = await makeUser(stack, { name: 'Dave Flags' });
    const ids = [
      await send(alice, { type: 'stream', to: 'general', topic: 'flags', content: 'a' }),
      await send(alice, { type: 'stream', to: 'general', topic: 'flags', content: 'b' }),
      await send(alice, { type: 'stream', to: 'general', topic: 'other', content: 'c' }),
    ];
    const queue = await register(dave, { event_types: ['update_message_flags'] });
    const read = await call(url(), 'POST', '/messages/flags', dave, {
      messages: [ids[0]],
      op: 'add',
      flag: 'read',
    });
    expect(read.body.messages).toEqual([ids[0]]);
    expectZulipSchema('/messages/flags', 'post', read.body);
    const bad = await call(url(), 'POST', '/messages/flags', dave, {
      messages: [ids[0]],
      op: 'add',
      flag: 'mentioned',
    });
    expect(bad.status).toBe(400);
    const [event] = await eventsOf(dave, queue, 'update_message_flags');
    expect(event).toMatchObject({ op: 'add', flag: 'read', messages: [ids[0]] });
    const general = (
      (await call(url(), 'GET', '/users/me/subscriptions', dave)).body.subscriptions as {
        stream_id: number;
      }[]
    )[0]?.stream_id;
    const topic = await call(url(), 'POST', '/mark_topic_as_read', dave, {
      stream_id: general,
      topic_name: 'flags',
    });
    expect(topic.status).toBe(200);
    const unread = async () =>
      (
        (
          await call(url(), 'POST', '/register', dave, {
            fetch_event_types: ['message', 'update_message_flags'],
          })
        ).body.unread_msgs as { count: number }
      ).count;
    expect(await unread()).toBe(1);
    await call(url(), 'POST', '/messages/flags', dave, { messages: [ids[0]], op: 'remove', flag: 'read' });
    const unreadEvents = await eventsOf(dave, queue, 'update_message_flags', 3);
    expect(unreadEvents.at(-1)).toMatchObject({
      op: 'remove',
      message_details: { [String(ids[0])]: { type: 'stream', topic: 'flags' } },
    });
    expect(await unread()).toBe(2);
    const all = await call(url(), 'POST', '/mark_all_as_read', dave);
    expect(all.body.complete).toBe(true);
    expect(await unread()).toBe(0);
    const narrow = await call(url(), 'POST', '/messages/flags/narrow', dave, {
      anchor: 'oldest',
      num_before: 0,
      num_after: 100,
      narrow: [['channel', 'general']],
      op: 'add',
      flag: 'starred',
    });
    expectZulipSchema('/messages/flags/narrow', 'post', narrow.body);
    expect(narrow.body.updated_count).toBe(3);
  });

  it('DELETE removes the message (sender or administrator) and sends delete_message', async () => {
    const id = await send(alice, { type: 'direct', to: [bob.id], content: 'regret' });
    const queue = await register(bob, { event_types: ['delete_message'] });
    expect((await call(url(), 'DELETE', `/messages/${id}`, bob)).body.msg).toBe(
      "You don't have permission to delete this message",
    );
    const deleted = await call(url(), 'DELETE', `/messages/${id}`, alice);
    expect(deleted.status).toBe(200);
    const [event] = await eventsOf(bob, queue, 'delete_message');
    expect(event).toMatchObject({ message_ids: [id], message_type: 'private' });
    expect((await call(url(), 'GET', `/messages/${id}`, alice)).status).toBe(400);
  });

  it("messages deleted with their deactivated sender take every recipient's flags row with them", async () => {
    const admin = await makeUser(stack, { role: 200 });
    const leaver = await makeUser(stack, { name: 'Leaver Lifecycle' });
    // A channel message has flags rows only where they differ from the default: the mentioned.
    const id = await send(leaver, {
      type: 'stream',
      to: 'general',
      topic: 'bye',
      content: 'bye @**Bob Lifecycle** @**Carol Lifecycle**',
    });
    const flagsRows = async () => {
      const [row] = await stack.database.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM chat.user_messages WHERE message_id = :id',
        { replacements: { id }, type: QueryTypes.SELECT },
      );
      return Number(row!.n);
    };
    expect(await flagsRows()).toBeGreaterThan(1);
    const deactivated = await call(url(), 'DELETE', `/users/${leaver.id}`, admin, {
      actions: { delete_public_channel_messages: true },
    });
    expect(deactivated.status).toBe(200);
    expect(await flagsRows()).toBe(0);
  });

  it('mentions set mentioned / wildcard_mentioned per recipient and render as Zulip renders them', async () => {
    const queues = await Promise.all([bob, carol].map((u) => register(u, { event_types: ['message'] })));
    const id = await send(alice, {
      type: 'stream',
      to: 'general',
      topic: 'ping',
      content: '@**Bob Lifecycle** and @_**Carol Lifecycle**',
    });
    const [bobEvent] = (await eventsOf(bob, queues[0] as string, 'message')) as QueuedEvent[];
    const [carolEvent] = (await eventsOf(carol, queues[1] as string, 'message')) as QueuedEvent[];
    expect(bobEvent?.flags).toEqual(['mentioned']);
    expect(carolEvent?.flags).toEqual([]);
    expect((bobEvent?.message as { content: string }).content).toBe(
      `<p><span class="user-mention" data-user-id="${bob.id}">@Bob Lifecycle</span> and ` +
        `<span class="user-mention silent" data-user-id="${carol.id}">Carol Lifecycle</span></p>`,
    );
    const wildcard = await send(alice, {
      type: 'stream',
      to: 'general',
      topic: 'ping',
      content: 'hey @**all**',
    });
    const got = await call(url(), 'GET', `/messages/${wildcard}`, carol);
    expect((got.body.message as { flags: string[] }).flags).toEqual(['wildcard_mentioned']);
    const inCode = await send(alice, {
      type: 'stream',
      to: 'general',
      topic: 'ping',
      content: '`@**Bob Lifecycle**`',
    });
    expect(
      ((await call(url(), 'GET', `/messages/${inCode}`, bob)).body.message as { flags: string[] }).flags,
    ).toEqual([]);
    const unread = (
      await call(url(), 'POST', '/register', bob, { fetch_event_types: ['message', 'update_message_flags'] })
    ).body.unread_msgs as { mentions: number[] };
    expect(unread.mentions).toEqual(expect.arrayContaining([id, wildcard]));
  });

  it('a group mention reaches its subgroups, @**topic** those who posted in the topic, and the sender has read its message', async () => {
    const group = async (name: string, members: number[]) => {
      const created = await call(url(), 'POST', '/user_groups/create', alice, {
        name,
        description: name,
        members,
      });
      expect(created.status).toBe(200);
      return created.body.group_id as number;
    };
    const outer = await group('mention-outer', [bob.id]);
    const inner = await group('mention-inner', [carol.id]);
    expect(
      (await call(url(), 'POST', `/user_groups/${outer}/subgroups`, alice, { add: [inner] })).status,
    ).toBe(200);
    const flagsOf = async (user: TestUser, id: number) =>
      ((await call(url(), 'GET', `/messages/${id}`, user)).body.message as { flags: string[] }).flags;
    const grouped = await send(alice, {
      type: 'stream',
      to: 'general',
      topic: 'crew',
      content: 'hi @*mention-outer*',
    });
    expect(await flagsOf(bob, grouped)).toEqual(['mentioned']);
    expect(await flagsOf(carol, grouped)).toEqual(['mentioned']);
    expect(await flagsOf(alice, grouped)).toEqual(['read']);
    await send(carol, { type: 'stream', to: 'general', topic: 'posters only', content: 'first' });
    const topic = await send(alice, {
      type: 'stream',
      to: 'general',
      topic: 'posters only',
      content: '@**topic** hi',
    });
    expect(await flagsOf(carol, topic)).toEqual(['wildcard_mentioned']);
    expect(await flagsOf(bob, topic)).toEqual([]);
    expect(await flagsOf(alice, topic)).toEqual(['read', 'wildcard_mentioned']);
  });

  it('a queue registered without apply_markdown, and GET /messages?apply_markdown=false, get the Markdown', async () => {
    const queue = (await call(url(), 'POST', '/register', bob, { event_types: ['message'] })).body
      .queue_id as string;
    const id = await send(alice, { type: 'direct', to: [bob.id], content: 'some *markdown*' });
    const [event] = await eventsOf(bob, queue, 'message');
    expect(event?.message).toMatchObject({ id, content: 'some *markdown*', content_type: 'text/x-markdown' });
    expect(event).not.toHaveProperty('raw_content');
    const read = await call(url(), 'GET', '/messages', bob, { anchor: id, apply_markdown: false });
    expect(read.body.messages).toEqual([
      expect.objectContaining({ content: 'some *markdown*', content_type: 'text/x-markdown' }),
    ]);
    expectZulipSchema('/messages', 'get', read.body);
  });

  it("renders Zulip's Markdown: emphasis, links, lists, quotes, code with language, spoilers, emoji, channel links; HTML is escaped", async () => {
    const render = async (content: string) => {
      const id = await send(alice, { type: 'direct', to: [bob.id], content });
      return ((await call(url(), 'GET', `/messages/${id}`, bob)).body.message as { content: string }).content;
    };
    expect(await render('**bold** *it* [link](https://example.com)')).toBe(
      '<p><strong>bold</strong> <em>it</em> <a href="https://example.com">link</a></p>',
    );
    expect(await render('- a\n- b')).toBe('<ul>\n<li>a</li>\n<li>b</li>\n</ul>');
    expect(await render('> quoted')).toBe('<blockquote>\n<p>quoted</p>\n</blockquote>');
    expect(await render('```python\nprint(1)\n```')).toBe(
      '<div class="codehilite" data-code-language="Python"><pre><span></span><code>print(1)\n</code></pre></div>',
    );
    expect(await render('```spoiler Secret\nhidden\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header"><p>Secret</p>\n</div><div class="spoiler-content" aria-hidden="true"><p>hidden</p>\n</div></div>',
    );
    expect(await render(':octopus:')).toBe(
      '<p><span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span></p>',
    );
    const general = (
      (await call(url(), 'GET', '/users/me/subscriptions', alice)).body.subscriptions as {
        stream_id: number;
      }[]
    )[0]?.stream_id;
    expect(await render('#**general>lunch**')).toBe(
      `<p><a class="stream-topic" data-stream-id="${general}" href="/#narrow/channel/${general}-general/topic/lunch">#general &gt; lunch</a></p>`,
    );
    expect(await render('<script>alert(1)</script> [x](javascript:alert(1))')).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt; [x](javascript:alert(1))</p>',
    );
  });
});
