import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { migrate } from '@muse/core';
import { chatMigrations, createChatUser, createOrganization } from '@muse/chat-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestDatabase } from '@muse/test-support/database';
import { call, makeOrganization, makeUser, waitForEvents, type TestUser } from '@muse/test-support/chat';

// Who received a channel message follows from subscription spans; flags rows exist only where a
// user's flags differ from the default (migration 1070). These pin what Zulip answers either way.

describe('subscription spans and flags by exception', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  const url = () => stack.chatUrl;
  const send = async (to: string, topic: string, content: string) =>
    (await call(url(), 'POST', '/messages', alice, { type: 'stream', to, topic, content })).body.id as number;
  const messagesOf = async (user: TestUser, params: Record<string, unknown> = {}) =>
    (
      await call(url(), 'GET', '/messages', user, {
        anchor: 'newest',
        num_before: 100,
        num_after: 0,
        ...params,
      })
    ).body.messages as { id: number; flags: string[] }[];
  const unreadOf = async (user: TestUser) =>
    (await call(url(), 'POST', '/register', user, { fetch_event_types: ['message', 'update_message_flags'] }))
      .body.unread_msgs as {
      count: number;
      streams: { stream_id: number; topic: string; unread_message_ids: number[] }[];
      mentions: number[];
    };
  const unreadIds = async (user: TestUser, streamId: number) =>
    (await unreadOf(user)).streams
      .filter((s) => s.stream_id === streamId)
      .flatMap((s) => s.unread_message_ids);
  const flagRows = async (messageId: number) =>
    (
      await stack.database.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM chat.user_messages WHERE message_id = :messageId',
        { replacements: { messageId }, type: QueryTypes.SELECT },
      )
    )[0]!.n;
  const subscribe = (user: TestUser, name: string) =>
    call(url(), 'POST', '/users/me/subscriptions', user, { subscriptions: [{ name }] });
  const unsubscribe = (user: TestUser, name: string) =>
    call(url(), 'DELETE', '/users/me/subscriptions', user, { subscriptions: [name] });
  const streamId = async (name: string) =>
    (await call(url(), 'GET', '/get_stream_id', alice, { stream: name })).body.stream_id as number;

  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    alice = await makeUser(stack, { name: 'Alice Spans' });
    bob = await makeUser(stack, { name: 'Bob Spans' });
  });
  afterAll(() => stack.stop());

  it('history before a subscription is historical; a re-subscription gap is not received', async () => {
    expect((await subscribe(alice, 'spans')).status).toBe(200);
    const before = await send('spans', 't', 'before bob');
    await subscribe(bob, 'spans');
    const during = await send('spans', 't', 'while bob is in');
    await unsubscribe(bob, 'spans');
    const gap = await send('spans', 't', 'while bob is out');
    await subscribe(bob, 'spans');
    const again = await send('spans', 't', 'bob is back');

    const received = (await messagesOf(bob)).filter((m) => [before, during, gap, again].includes(m.id));
    expect(received.map((m) => m.id)).toEqual([during, again]);
    expect(received.map((m) => m.flags)).toEqual([[], []]);
    // The public channel's history shows the rest, as Zulip shows history a user did not receive.
    const narrowed = await messagesOf(bob, { narrow: [{ operator: 'channel', operand: 'spans' }] });
    expect(narrowed.map((m) => [m.id, m.flags])).toEqual([
      [before, ['read', 'historical']],
      [during, []],
      [gap, ['read', 'historical']],
      [again, []],
    ]);
    const single = await call(url(), 'GET', `/messages/${gap}`, bob);
    expect((single.body.message as { flags: string[] }).flags).toEqual(['read', 'historical']);
    expect(await unreadIds(bob, await streamId('spans'))).toEqual([during, again]);
    // The sender's copy is read, and none of these needed a flags row.
    const own = (await messagesOf(alice)).find((m) => m.id === again);
    expect(own?.flags).toEqual(['read']);
    expect(Number(await flagRows(again))).toBe(0);
  });

  it('mentions write rows only for the mentioned; a wildcard is on the message', async () => {
    await subscribe(alice, 'mentions');
    await subscribe(bob, 'mentions');
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['message'] });
    const named = await send('mentions', 't', 'hi @**Bob Spans**');
    const everyone = await send('mentions', 't', 'hi @**all**');
    const events = await waitForEvents(url(), bob, queue.body.queue_id as string, (e) => e.length >= 2);
    expect(events.map((e) => e.flags)).toEqual([['mentioned'], ['wildcard_mentioned']]);
    expect(Number(await flagRows(named))).toBe(1);
    expect(Number(await flagRows(everyone))).toBe(0);
    const mine = await messagesOf(alice, { narrow: [{ operator: 'channel', operand: 'mentions' }] });
    expect(mine.map((m) => m.flags)).toEqual([['read'], ['read', 'wildcard_mentioned']]);
    const unread = await unreadOf(bob);
    expect(unread.mentions).toEqual(expect.arrayContaining([named, everyone]));
    // An edit that drops the wildcard takes it off everyone's copy.
    await call(url(), 'PATCH', `/messages/${everyone}`, alice, { content: 'hi all' });
    const after = await messagesOf(bob, { narrow: [{ operator: 'channel', operand: 'mentions' }] });
    expect(after.map((m) => m.flags)).toEqual([['mentioned'], []]);
  });

  it('a channel beyond 150 members: its message event names the message and reaches each receiver once', async () => {
    await subscribe(alice, 'crowd');
    await subscribe(bob, 'crowd');
    const crowd = await streamId('crowd');
    const realmId = (
      await stack.database.db.query<{ realm_id: number }>('SELECT realm_id FROM chat.users WHERE id = :id', {
        replacements: { id: alice.id },
        type: QueryTypes.SELECT,
      })
    )[0]!.realm_id;
    // 160 more members, subscribed by SQL (the spans follow by trigger).
    const members = (
      await stack.database.db.query<{ id: number; delivery_email: string; api_key: string }>(
        `INSERT INTO chat.users (realm_id, delivery_email, full_name, api_key)
         SELECT :realmId, 'crowd' || g || '@example.com', 'Crowd ' || g, md5(random()::text || g)
         FROM generate_series(1, 160) AS g RETURNING id, delivery_email, api_key`,
        { replacements: { realmId }, type: QueryTypes.SELECT },
      )
    ).map((u) => ({ id: u.id, email: u.delivery_email, apiKey: u.api_key, password: '' }));
    await stack.database.db.query(
      `INSERT INTO chat.subscriptions (user_id, stream_id, color)
       SELECT unnest(CAST(:ids AS int[])), :crowd, '#76ce90'`,
      { replacements: { ids: `{${members.map((m) => m.id).join(',')}}`, crowd } },
    );
    const [carol, leaver] = [members[0]!, members[1]!];
    const [outsider, joiner] = [await makeUser(stack), await makeUser(stack)];
    const queues = new Map<TestUser, string>();
    for (const user of [alice, bob, carol, leaver, outsider, joiner])
      queues.set(
        user,
        (await call(url(), 'POST', '/register', user, { event_types: ['message'] })).body.queue_id as string,
      );

    const named = await send('crowd', 'big', 'hi @**Bob Spans**');
    const everyone = await send('crowd', 'big', 'hi @**all**');
    // The log names the message for the crowd, not its 160 members; the sender and the mentioned
    // have entries of their own.
    const entries = await stack.database.db.query<{
      users: number | null;
      stream_id: number | null;
      excluded: number[] | null;
    }>(
      `SELECT cardinality(user_ids) AS users, stream_id, excluded_ids AS excluded FROM chat.event_log
       WHERE event->'message'->>'id' = :id ORDER BY position`,
      { replacements: { id: String(named) }, type: QueryTypes.SELECT },
    );
    expect(entries.map((e) => [e.users, e.stream_id, e.excluded?.sort((a, b) => a - b) ?? null])).toEqual([
      [1, null, null],
      [1, null, null],
      [null, crowd, [alice.id, bob.id].sort((a, b) => a - b)],
    ]);
    // Leaving after the send keeps the message (the span covers it); joining after does not give it.
    expect((await unsubscribe(leaver, 'crowd')).status).toBe(200);
    expect((await subscribe(joiner, 'crowd')).status).toBe(200);
    const marker = (
      await call(url(), 'POST', '/messages', alice, {
        type: 'direct',
        to: [outsider.id, joiner.id],
        content: 'm',
      })
    ).body.id as number;

    const received = async (user: TestUser, last: number) =>
      (
        await waitForEvents(url(), user, queues.get(user)!, (e) =>
          e.some((x) => (x.message as { id: number }).id === last),
        )
      ).map((e) => [(e.message as { id: number }).id, e.flags]);
    expect(await received(alice, marker)).toEqual([
      [named, ['read']],
      [everyone, ['read', 'wildcard_mentioned']],
      [marker, ['read']],
    ]);
    expect(await received(bob, everyone)).toEqual([
      [named, ['mentioned']],
      [everyone, ['wildcard_mentioned']],
    ]);
    for (const member of [carol, leaver])
      expect(await received(member, everyone)).toEqual([
        [named, []],
        [everyone, ['wildcard_mentioned']],
      ]);
    for (const user of [outsider, joiner]) expect(await received(user, marker)).toEqual([[marker, []]]);
  });

  it('read watermark and exceptions: /messages/flags and the mark-read endpoints answer as before', async () => {
    await subscribe(alice, 'marks');
    await subscribe(bob, 'marks');
    const id = await streamId('marks');
    const [a1, a2, a3, a4] = [
      await send('marks', 'one', 'a1'),
      await send('marks', 'one', 'a2'),
      await send('marks', 'one', 'a3'),
      await send('marks', 'one', 'a4'),
    ];
    const queue = await call(url(), 'POST', '/register', bob, { event_types: ['update_message_flags'] });
    const flags = (op: string, flag: string, messages: number[]) =>
      call(url(), 'POST', '/messages/flags', bob, { op, flag, messages });

    expect((await flags('add', 'read', [a2!])).body.messages).toEqual([a2]);
    expect((await flags('add', 'read', [a2!])).body.messages).toEqual([]);
    expect(await unreadIds(bob, id)).toEqual([a1, a3, a4]);
    expect((await call(url(), 'POST', '/mark_stream_as_read', bob, { stream_id: id })).status).toBe(200);
    expect(await unreadIds(bob, id)).toEqual([]);
    // Below the watermark: marking unread is an exception row, and only what changed is named.
    expect((await flags('remove', 'read', [a3!, a4!])).body.messages).toEqual([a3, a4]);
    expect((await flags('remove', 'read', [a3!])).body.messages).toEqual([]);
    expect(await unreadIds(bob, id)).toEqual([a3, a4]);
    const first = await call(url(), 'GET', '/messages', bob, {
      anchor: 'first_unread',
      num_before: 0,
      num_after: 0,
      narrow: [{ operator: 'channel', operand: 'marks' }],
    });
    expect(first.body.anchor).toBe(a3);
    expect((await flags('add', 'starred', [a1!])).body.messages).toEqual([a1]);
    const starred = await call(url(), 'GET', `/messages/${a1}`, bob);
    expect((starred.body.message as { flags: string[] }).flags).toEqual(['read', 'starred']);
    const b5 = await send('marks', 'two', 'b5');
    expect(await unreadIds(bob, id)).toEqual([a3, a4, b5]);
    await call(url(), 'POST', '/mark_topic_as_read', bob, { stream_id: id, topic_name: 'two' });
    expect(await unreadIds(bob, id)).toEqual([a3, a4]);
    await call(url(), 'POST', '/mark_all_as_read', bob);
    expect(await unreadIds(bob, id)).toEqual([]);
    expect((await unreadOf(bob)).count).toBe(0);
    const events = await waitForEvents(url(), bob, queue.body.queue_id as string, (e) => e.length >= 6);
    expect(events.map((e) => [e.op, e.flag, e.messages])).toEqual([
      ['add', 'read', [a2]],
      ['add', 'read', [a1, a3, a4]],
      ['remove', 'read', [a3, a4]],
      ['add', 'starred', [a1]],
      ['add', 'read', [b5]],
      ['add', 'read', expect.arrayContaining([a3, a4])],
    ]);
    expect(events[2]!.message_details).toEqual({
      [a3!]: { type: 'stream', stream_id: id, topic: 'one', unmuted_stream_msg: true },
      [a4!]: { type: 'stream', stream_id: id, topic: 'one', unmuted_stream_msg: true },
    });
    expect(await unreadIds(alice, id)).toEqual([]);
  });
});

describe('migration 1070 on data written a row per recipient', () => {
  it('keeps every user flags and what they received', async () => {
    const database = await createTestDatabase({ migrated: false });
    const before = await mkdtemp(path.join(tmpdir(), 'chat-migrations-'));
    try {
      // Every migration but 1070: the later ones (the event log's) are what today's code, which
      // builds the organization below, writes to.
      for (const file of await readdir(chatMigrations.directory))
        if (/^\d+/.test(file) && !file.startsWith('1070'))
          await symlink(path.join(chatMigrations.directory, file), path.join(before, file));
      await migrate(database.db, [{ ...chatMigrations, directory: before }]);
      const db = database.db;
      const q = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
        db.query<T>(sql, { replacements, type: QueryTypes.SELECT });
      await createOrganization(db, { subdomain: 'old', name: 'Old' });
      const users = [];
      for (const name of ['a', 'b', 'c'])
        users.push(
          await createChatUser(db, { subdomain: 'old', email: `${name}@old.example.com`, fullName: name }),
        );
      const [a, b, c] = [users[0]!, users[1]!, users[2]!];
      const [general] = await q<{ id: number }>(`SELECT id FROM chat.streams WHERE name = 'general'`);
      const write = async (sender: number, streamId: number | null, recipients: [number, string[]][]) => {
        const [m] = await q<{ id: string }>(
          `INSERT INTO chat.messages (realm_id, sender_id, stream_id, recipient_ids, content, rendered_content)
           VALUES (:realm, :sender, :stream, :ids, 'x', '<p>x</p>') RETURNING id`,
          {
            realm: a.realm_id,
            sender,
            stream: streamId,
            ids: streamId === null ? `{${recipients.map(([u]) => u).join(',')}}` : null,
          },
        );
        for (const [user, flags] of recipients)
          await q(`INSERT INTO chat.user_messages (user_id, message_id, flags) VALUES (:user, :m, :flags)`, {
            user,
            m: m!.id,
            flags: `{${flags.join(',')}}`,
          });
        return Number(m!.id);
      };
      const g = general!.id;
      await write(a.id, g, [
        [a.id, ['read']],
        [b.id, ['read']],
        [c.id, ['read']],
      ]);
      await write(a.id, g, [
        [a.id, ['read']],
        [b.id, ['read', 'starred']],
        [c.id, []],
      ]);
      // c leaves general and comes back: the message in between was never c's.
      await q('UPDATE chat.subscriptions SET active = false WHERE user_id = :c', { c: c.id });
      await write(b.id, g, [
        [a.id, ['mentioned']],
        [b.id, ['read']],
      ]);
      await q('UPDATE chat.subscriptions SET active = true WHERE user_id = :c', { c: c.id });
      await write(b.id, g, [
        [a.id, []],
        [b.id, ['read']],
        [c.id, ['wildcard_mentioned']],
      ]);
      await write(a.id, null, [
        [a.id, ['read']],
        [b.id, []],
      ]);
      // b leaves for good after one more.
      await write(c.id, g, [
        [a.id, ['read']],
        [b.id, []],
        [c.id, ['read']],
      ]);
      await q('UPDATE chat.subscriptions SET active = false WHERE user_id = :b', { b: b.id });
      await write(c.id, g, [
        [a.id, []],
        [c.id, ['read']],
      ]);
      const old = await q<{ user_id: number; message_id: string; flags: string[] }>(
        'SELECT user_id, message_id, flags FROM chat.user_messages',
      );

      expect(await migrate(db, [chatMigrations])).toEqual(['chat/1070-subscription-spans']);
      const now = await q<{ user_id: number; message_id: string; flags: string[] | null }>(
        `SELECT u.id AS user_id, m.id AS message_id, chat.message_flags(u.id, m.id) AS flags
         FROM chat.users u CROSS JOIN chat.messages m WHERE u.id IN (:ids)`,
        { ids: [a.id, b.id, c.id] },
      );
      const key = (r: { user_id: number; message_id: string }) => `${r.user_id}/${r.message_id}`;
      const expected = new Map(old.map((r) => [key(r), r.flags]));
      for (const row of now)
        expect([key(row), row.flags]).toEqual([key(row), expected.get(key(row)) ?? null]);
      const [left] = await q<{ n: string }>('SELECT count(*) AS n FROM chat.user_messages');
      expect(Number(left!.n)).toBeLessThan(old.length);
      // Still subscribed: the next message reaches a and c, not b.
      const next = await write(a.id, g, []);
      const holders = await q<{ user_id: number }>(
        'SELECT user_id FROM chat.message_holders(:m) WHERE user_id IN (:ids) ORDER BY 1',
        { m: next, ids: [a.id, b.id, c.id] },
      );
      expect(holders.map((h) => h.user_id)).toEqual([a.id, c.id].sort((x, y) => x - y));
    } finally {
      await rm(before, { recursive: true, force: true });
      await database.drop();
    }
  });
});
