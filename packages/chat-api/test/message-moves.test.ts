import { describe, expect, it } from 'vitest';
import {
  call,
  racingClients,
  makeUser,
  waitForEvents,
  type QueuedEvent,
  type TestUser,
} from '@muse/test-support/chat';

/**
 * Messages moved to another channel (README, "Moving messages to another channel"): who keeps
 * them, who loses them (`delete_message`), who gains them (`update_message`), and that every
 * later event about them reaches exactly those who have them — checked against every client's
 * queue and `GET /messages`.
 */
describe('moving messages to another channel', () => {
  // The API on a pool of ten connections, as in production (chatOnPool).
  const suite = racingClients({ poolMax: 10 });
  const { url } = suite;

  const EVENT_TYPES = ['message', 'update_message', 'delete_message', 'reaction'];

  const register = (user: TestUser) => suite.register(user, EVENT_TYPES);

  async function subscribe(
    by: TestUser,
    name: string,
    principals: TestUser[],
    settings = {},
  ): Promise<number> {
    const reply = await call(url(), 'POST', '/users/me/subscriptions', by, {
      subscriptions: [{ name }],
      principals: principals.map((p) => p.id),
      ...settings,
    });
    expect(reply.status).toBe(200);
    return (await call(url(), 'GET', '/get_stream_id', by, { stream: name })).body.stream_id as number;
  }

  async function send(by: TestUser, to: number, content: string): Promise<number> {
    const reply = await call(url(), 'POST', '/messages', by, { type: 'stream', to, topic: 'plans', content });
    expect(reply.status).toBe(200);
    return reply.body.id as number;
  }

  /** The user's messages among `ids`, with their flags, as GET /messages answers them. */
  async function held(user: TestUser, ids: number[]): Promise<Map<number, string[]>> {
    const reply = await call(url(), 'GET', '/messages', user, {
      anchor: 'newest',
      num_before: 100,
      num_after: 0,
    });
    expect(reply.status).toBe(200);
    const messages = reply.body.messages as { id: number; flags: string[]; stream_id: number }[];
    return new Map(messages.filter((m) => ids.includes(m.id)).map((m) => [m.id, m.flags]));
  }

  const about = (events: QueuedEvent[], ids: number[]) =>
    events.filter((e) =>
      ((e.message_ids as number[] | undefined) ?? [e.message_id as number]).some((id) => ids.includes(id)),
    );

  it('to a private channel: leavers get delete_message, the new channel gains them, later events follow', async () => {
    const admin = await makeUser(suite.stack, { role: 200 });
    const [leaver, both, early, late] = await Promise.all([
      makeUser(suite.stack),
      makeUser(suite.stack),
      makeUser(suite.stack),
      makeUser(suite.stack),
    ]);
    const from = await subscribe(admin, 'move from', [admin, leaver, both]);
    // Private, history not shared: a subscriber has what was sent while subscribed (and, as in
    // Zulip, what is moved in while subscribed).
    const to = await subscribe(admin, 'move to', [admin, both, early], { invite_only: true });
    const first = await send(admin, from, 'first');
    const second = await send(leaver, from, 'second');
    await subscribe(admin, 'move to', [late]);
    const people = [admin, leaver, both, early, late];
    const queues = await Promise.all(people.map(register));
    expect([...(await held(late, [first, second])).keys()]).toEqual([]);

    const moved = await call(url(), 'PATCH', `/messages/${first}`, admin, {
      stream_id: to,
      propagate_mode: 'change_all',
    });
    expect(moved.status).toBe(200);

    // Later events about the moved messages, then a direct message to everyone that ends each queue.
    const reacted = await call(url(), 'POST', `/messages/${second}/reactions`, both, {
      emoji_name: 'octopus',
    });
    expect(reacted.status).toBe(200);
    const edited = await call(url(), 'PATCH', `/messages/${second}`, leaver, { content: 'second, edited' });
    expect(edited.body.msg).toBe('Invalid message(s)'); // the leaver no longer has it
    const renamed = await call(url(), 'PATCH', `/messages/${second}`, admin, { topic: 'later plans' });
    expect(renamed.status).toBe(200);
    const deleted = await call(url(), 'DELETE', `/messages/${first}`, admin);
    expect(deleted.status).toBe(200);
    const end = await call(url(), 'POST', '/messages', admin, {
      type: 'direct',
      to: people.filter((p) => p !== admin).map((p) => p.id),
      content: 'that is all',
    });
    expect(end.status).toBe(200);
    const seen = await Promise.all(
      people.map((p, i) =>
        waitForEvents(url(), p, queues[i]!, (events) =>
          events.some((e) => e.type === 'message' && (e.message as { id: number }).id === end.body.id),
        ),
      ),
    );
    const [adminEvents, leaverEvents, ...keepers] = seen.map((events) => about(events, [first, second]));

    // The leaver: one delete_message per message, nothing after, and neither message kept.
    expect(leaverEvents!.map((e) => [e.type, e.message_ids, e.stream_id, e.topic])).toEqual([
      ['delete_message', [first], from, 'plans'],
      ['delete_message', [second], from, 'plans'],
    ]);
    expect([...(await held(leaver, [first, second])).keys()]).toEqual([]);

    // Everyone else (who kept, who had it through the new channel, who gained it): the move,
    // then the reaction, the rename and the deletion.
    for (const events of [adminEvents!, ...keepers])
      expect(
        events.map((e) => [e.type, e.new_stream_id ?? e.subject ?? e.message_ids ?? e.message_id]),
      ).toEqual([
        ['update_message', to],
        ['reaction', second],
        ['update_message', 'later plans'],
        ['delete_message', [first]],
      ]);
    // The moved second message, in each one's history: flags kept (the leaver sent it: unread
    // for those who had it), read for whoever gained it.
    const flags = await Promise.all(
      [both, early, late].map(async (u) => (await held(u, [first, second])).get(second)),
    );
    expect(flags).toEqual([[], ['read'], ['read']]);
  });

  it('to a public channel: a non-member who had it gets delete_message; a later member does not gain it', async () => {
    const admin = await makeUser(suite.stack, { role: 200 });
    const [leaver, joiner] = await Promise.all([makeUser(suite.stack), makeUser(suite.stack)]);
    const from = await subscribe(admin, 'open from', [admin, leaver]);
    const to = await subscribe(admin, 'open to', [admin]);
    const id = await send(admin, from, 'going public');
    await subscribe(admin, 'open to', [joiner]);
    const people = [admin, leaver, joiner];
    const queues = await Promise.all(people.map(register));
    const moved = await call(url(), 'PATCH', `/messages/${id}`, admin, { stream_id: to });
    expect(moved.status).toBe(200);
    const reacted = await call(url(), 'POST', `/messages/${id}/reactions`, admin, { emoji_name: 'octopus' });
    expect(reacted.status).toBe(200);
    const end = await call(url(), 'POST', '/messages', admin, {
      type: 'direct',
      to: [leaver.id, joiner.id],
      content: 'done',
    });
    const seen = await Promise.all(
      people.map((p, i) =>
        waitForEvents(url(), p, queues[i]!, (events) =>
          events.some((e) => e.type === 'message' && (e.message as { id: number }).id === end.body.id),
        ),
      ),
    );
    expect(seen.map((events) => about(events, [id]).map((e) => e.type))).toEqual([
      ['update_message', 'reaction'],
      ['delete_message'],
      [],
    ]);
    expect(await Promise.all([admin, leaver, joiner].map(async (u) => (await held(u, [id])).size))).toEqual([
      1, 0, 0,
    ]);
    // Both can still read it through the public channel's history.
    for (const user of [leaver, joiner])
      expect((await call(url(), 'GET', `/messages/${id}`, user)).body.message).toMatchObject({
        flags: ['read', 'historical'],
      });
  });

  it('six topics moved at once while members join and leave the new channel: each client is told what it has', async () => {
    const admin = await makeUser(suite.stack, { role: 200 });
    const people = await Promise.all(Array.from({ length: 8 }, () => makeUser(suite.stack)));
    const from = await subscribe(admin, 'busy from', [admin, ...people]);
    const to = await subscribe(admin, 'busy to', [admin, ...people.slice(0, 4)], { invite_only: true });
    const topics = [0, 1, 2, 3, 4, 5].map((n) => `topic ${n}`);
    const ids: number[] = [];
    const firsts: number[] = [];
    for (const topic of topics)
      for (let n = 0; n < 3; n++) {
        const reply = await call(url(), 'POST', '/messages', people[n]!, {
          type: 'stream',
          to: from,
          topic,
          content: `${topic}/${n}`,
        });
        expect(reply.status).toBe(200);
        ids.push(reply.body.id as number);
        if (n === 0) firsts.push(reply.body.id as number);
      }
    const queues = await Promise.all(people.map(register));
    // Each client's picture starts from its history and follows its events.
    const pictures = await Promise.all(people.map(async (p) => new Set((await held(p, ids)).keys())));

    const replies = await Promise.all([
      ...firsts.map((id) =>
        call(url(), 'PATCH', `/messages/${id}`, admin, { stream_id: to, propagate_mode: 'change_all' }),
      ),
      ...people
        .slice(2, 4)
        .map((p) => call(url(), 'DELETE', '/users/me/subscriptions', p, { subscriptions: ['busy to'] })),
      ...people.slice(4, 6).map((p) =>
        call(url(), 'POST', '/users/me/subscriptions', admin, {
          subscriptions: [{ name: 'busy to' }],
          principals: [p.id],
        }),
      ),
    ]);
    expect(replies.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
    const end = await call(url(), 'POST', '/messages', admin, {
      type: 'direct',
      to: people.map((p) => p.id),
      content: 'done moving',
    });
    expect(end.status).toBe(200);
    for (const [i, person] of people.entries()) {
      const events = await waitForEvents(url(), person, queues[i]!, (seen) =>
        seen.some((e) => e.type === 'message' && (e.message as { id: number }).id === end.body.id),
      );
      const picture = pictures[i]!;
      for (const e of about(events, ids)) {
        const touched = (e.message_ids as number[]).filter((id) => ids.includes(id));
        if (e.type === 'delete_message') for (const id of touched) picture.delete(id);
        if (e.type === 'update_message' && e.new_stream_id === to) for (const id of touched) picture.add(id);
      }
      expect([...picture].sort((a, b) => a - b)).toEqual(
        [...(await held(person, ids)).keys()].sort((a, b) => a - b),
      );
    }
  });

  it('a content change cannot ride along with a move to another channel', async () => {
    const admin = await makeUser(suite.stack, { role: 200 });
    const from = await subscribe(admin, 'content from', [admin]);
    const to = await subscribe(admin, 'content to', [admin]);
    const id = await send(admin, from, 'stay as I am');
    const refused = await call(url(), 'PATCH', `/messages/${id}`, admin, {
      stream_id: to,
      content: 'changed',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe('Cannot change message content while changing channel');
    expect((await held(admin, [id])).size).toBe(1);
  });
});
