import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, waitForEvents, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

describe('drafts and saved snippets', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  let channel: number;
  let secret: number;
  const url = () => stack.chatUrl;
  const register = async (user: TestUser, types: string[]) =>
    (await call(url(), 'POST', '/register', user, { event_types: types })).body.queue_id as string;
  const streamId = async (name: string) => {
    const [row] = await stack.database.db.query<{ id: number }>(
      'SELECT id FROM chat.streams WHERE name = :name',
      {
        replacements: { name },
        type: QueryTypes.SELECT,
      },
    );
    return row!.id;
  };

  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '1000' });
    await makeOrganization(stack);
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    await call(url(), 'POST', '/users/me/subscriptions', alice, { subscriptions: [{ name: 'drafting' }] });
    await call(url(), 'POST', '/users/me/subscriptions', bob, {
      subscriptions: [{ name: 'bobs-secret' }],
      invite_only: true,
    });
    channel = await streamId('drafting');
    secret = await streamId('bobs-secret');
  });
  afterAll(() => stack.stop());

  it('creates drafts (ids in submission order, timestamp filled), lists them newest first, syncs them by events', async () => {
    const queue = await register(alice, ['drafts']);
    const created = await call(url(), 'POST', '/drafts', alice, {
      drafts: [
        { type: 'stream', to: [channel], topic: 'ideas', content: 'first', timestamp: 1_595_479_019 },
        { type: 'private', to: [bob.id], topic: 'ignored', content: 'second' },
        { type: '', to: [], topic: '', content: 'third' },
      ],
    });
    expect(created.status).toBe(200);
    expectZulipSchema('/drafts', 'post', created.body);
    const ids = created.body.ids as number[];
    expect(ids).toHaveLength(3);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    const listed = await call(url(), 'GET', '/drafts', alice);
    expectZulipSchema('/drafts', 'get', listed.body);
    const drafts = listed.body.drafts as { id: number; timestamp: number }[];
    expect(listed.body.count).toBe(3);
    // The two without a timestamp were stamped now; the one that gave an old timestamp is last.
    expect(drafts.at(-1)).toEqual({
      id: ids[0],
      type: 'stream',
      to: [channel],
      topic: 'ideas',
      content: 'first',
      timestamp: 1_595_479_019,
    });
    expect(
      drafts
        .slice(0, 2)
        .map((d) => d.id)
        .sort(),
    ).toEqual([ids[1], ids[2]].sort());
    expect(drafts.find((d) => d.id === ids[1])).toMatchObject({ topic: '', to: [bob.id] });
    expect(Math.abs(drafts[0]!.timestamp - Date.now() / 1000)).toBeLessThan(120);

    const edited = await call(url(), 'PATCH', `/drafts/${ids[2]}`, alice, {
      draft: { type: 'private', to: [bob.id], topic: '', content: 'third, addressed' },
    });
    expect(edited.status).toBe(200);
    expectZulipSchema('/drafts/{draft_id}', 'patch', edited.body);
    const deleted = await call(url(), 'DELETE', `/drafts/${ids[1]}`, alice);
    expectZulipSchema('/drafts/{draft_id}', 'delete', deleted.body);

    const events = await waitForEvents(url(), alice, queue, (seen) => seen.length >= 3);
    expectZulipSchema('/events', 'get', { result: 'success', msg: '', events, queue_id: queue });
    expect(events.map((e) => e.op)).toEqual(['add', 'update', 'remove']);
    expect((events[0]!.drafts as { id: number }[]).map((d) => d.id)).toEqual(ids);
    expect(events[1]).toMatchObject({ draft: { id: ids[2], content: 'third, addressed', to: [bob.id] } });
    expect(events[2]).toMatchObject({ draft_id: ids[1] });

    const state = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['drafts'] });
    expectZulipSchema('/register', 'post', state.body);
    expect((state.body.drafts as { id: number }[]).map((d) => d.id).sort()).toEqual([ids[0], ids[2]].sort());
    // Nobody else sees them.
    expect((await call(url(), 'GET', '/drafts', bob)).body).toMatchObject({ count: 0, drafts: [] });
  });

  it('refuses invalid drafts with BAD_REQUEST and writes none of the batch', async () => {
    const cases: [unknown, string][] = [
      [
        { type: 'stream', to: [], topic: 't', content: 'x' },
        'Must specify exactly 1 channel ID for channel messages',
      ],
      [
        { type: 'stream', to: [channel, channel], topic: 't', content: 'x' },
        'Must specify exactly 1 channel ID for channel messages',
      ],
      [{ type: 'stream', to: [999_999], topic: 't', content: 'x' }, 'Invalid channel ID'],
      [{ type: 'stream', to: [secret], topic: 't', content: 'x' }, 'Invalid channel ID'],
      [{ type: 'private', to: [999_999], topic: '', content: 'x' }, 'Invalid user ID 999999'],
      [
        { type: 'private', to: [bob.id], topic: '', content: 'a\u0000b' },
        // Refused for every JSON parameter before the drafts are read (see the security tests).
        'drafts contains a NUL (0x00) character',
      ],
      [
        { type: 'stream', to: [channel], topic: 'a\u0000b', content: 'x' },
        'drafts contains a NUL (0x00) character',
      ],
      [
        { type: 'stream', to: [channel], content: 'x' },
        "Invalid drafts[1]: must have required property 'topic'",
      ],
      [
        { type: 'letter', to: [], topic: '', content: 'x' },
        'Invalid drafts[1].type: must be equal to one of the allowed values',
      ],
    ];
    const before = (await call(url(), 'GET', '/drafts', alice)).body.count;
    for (const [bad, msg] of cases) {
      const reply = await call(url(), 'POST', '/drafts', alice, {
        drafts: [{ type: '', to: [], topic: '', content: 'valid one' }, bad],
      });
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { result: 'error', msg, code: 'BAD_REQUEST' },
      });
      expectZulipSchema('/drafts', 'post', reply.body, '400');
    }
    expect((await call(url(), 'GET', '/drafts', alice)).body.count).toBe(before);

    const bobs = await call(url(), 'POST', '/drafts', bob, {
      drafts: [{ type: '', to: [], topic: '', content: 'bob' }],
    });
    const bobsId = (bobs.body.ids as number[])[0]!;
    for (const target of [999_999, bobsId]) {
      const edited = await call(url(), 'PATCH', `/drafts/${target}`, alice, {
        draft: { type: '', to: [], topic: '', content: 'x' },
      });
      expect({ status: edited.status, body: edited.body }).toEqual({
        status: 404,
        body: { result: 'error', msg: 'Draft does not exist', code: 'BAD_REQUEST' },
      });
      expectZulipSchema('/drafts/{draft_id}', 'patch', edited.body, '404');
      const deleted = await call(url(), 'DELETE', `/drafts/${target}`, alice);
      expect(deleted.body).toEqual({ result: 'error', msg: 'Draft does not exist', code: 'BAD_REQUEST' });
      expectZulipSchema('/drafts/{draft_id}', 'delete', deleted.body, '404');
    }
    const missing = await call(url(), 'PATCH', `/drafts/${bobsId}`, bob, {});
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'draft' });
  });

  it('saved snippets: create, list, edit, delete, events and initial state', async () => {
    const queue = await register(alice, ['saved_snippets']);
    const created = await call(url(), 'POST', '/saved_snippets', alice, {
      title: 'Greeting',
      content: 'Welcome **aboard**.',
    });
    expect(created.status).toBe(200);
    expectZulipSchema('/saved_snippets', 'post', created.body);
    const id = created.body.saved_snippet_id as number;
    const edited = await call(url(), 'PATCH', `/saved_snippets/${id}`, alice, { content: 'Welcome!' });
    expectZulipSchema('/saved_snippets/{saved_snippet_id}', 'patch', edited.body);
    const listed = await call(url(), 'GET', '/saved_snippets', alice);
    expectZulipSchema('/saved_snippets', 'get', listed.body);
    expect(listed.body.saved_snippets).toEqual([
      { id, title: 'Greeting', content: 'Welcome!', date_created: expect.any(Number) },
    ]);
    const state = await call(url(), 'POST', '/register', alice, { fetch_event_types: ['saved_snippets'] });
    expectZulipSchema('/register', 'post', state.body);
    expect(state.body.saved_snippets).toEqual(listed.body.saved_snippets);
    const deleted = await call(url(), 'DELETE', `/saved_snippets/${id}`, alice);
    expectZulipSchema('/saved_snippets/{saved_snippet_id}', 'delete', deleted.body);
    const events = await waitForEvents(url(), alice, queue, (seen) => seen.length >= 3);
    expectZulipSchema('/events', 'get', { result: 'success', msg: '', events, queue_id: queue });
    expect(events.map((e) => e.op)).toEqual(['add', 'update', 'remove']);
    expect(events[1]).toMatchObject({ saved_snippet: { id, title: 'Greeting', content: 'Welcome!' } });
    expect(events[2]).toMatchObject({ saved_snippet_id: id });
  });

  it('saved snippets: BAD_REQUEST for empty fields and for one that does not exist or is someone else’s', async () => {
    for (const [params, msg] of [
      [{ title: ' ', content: 'x' }, 'Title cannot be empty.'],
      [{ title: 't', content: '' }, 'Content cannot be empty.'],
      [{ title: 't'.repeat(201), content: 'x' }, 'title is too long (limit: 200 characters)'],
    ] as const) {
      const reply = await call(url(), 'POST', '/saved_snippets', alice, params);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { result: 'error', msg, code: 'BAD_REQUEST' },
      });
      expectZulipSchema('/saved_snippets', 'post', reply.body, '400');
    }
    const bobs = await call(url(), 'POST', '/saved_snippets', bob, { title: 'Bob', content: 'mine' });
    const bobsId = bobs.body.saved_snippet_id as number;
    const gone = { result: 'error', msg: 'Saved snippet does not exist.', code: 'BAD_REQUEST' };
    for (const target of [999_999, bobsId]) {
      const edited = await call(url(), 'PATCH', `/saved_snippets/${target}`, alice, { title: 'stolen' });
      expect({ status: edited.status, body: edited.body }).toEqual({ status: 404, body: gone });
      expectZulipSchema('/saved_snippets/{saved_snippet_id}', 'patch', edited.body, '404');
      const deleted = await call(url(), 'DELETE', `/saved_snippets/${target}`, alice);
      expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 404, body: gone });
      expectZulipSchema('/saved_snippets/{saved_snippet_id}', 'delete', deleted.body, '404');
    }
    const nothing = await call(url(), 'PATCH', `/saved_snippets/${bobsId}`, bob, {});
    expect(nothing.body).toEqual({ result: 'error', msg: 'Nothing to update', code: 'BAD_REQUEST' });
    const emptied = await call(url(), 'PATCH', `/saved_snippets/${bobsId}`, bob, { title: '' });
    expect(emptied.body).toEqual({ result: 'error', msg: 'Title cannot be empty.', code: 'BAD_REQUEST' });
    expect((await call(url(), 'GET', '/saved_snippets', bob)).body.saved_snippets).toEqual([
      expect.objectContaining({ id: bobsId, title: 'Bob', content: 'mine' }),
    ]);
  });
});
