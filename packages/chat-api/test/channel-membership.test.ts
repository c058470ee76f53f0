import { describe, expect, it } from 'vitest';
import {
  call,
  racingClients,
  makeUser,
  waitForEvents,
  type QueuedEvent,
  type Reply,
  type TestUser,
} from '@muse/test-support/chat';

/**
 * Subscription changes of one channel at the same moment, over HTTP, with everyone's queue
 * polled: what each client is told about the channel's members, and which messages it is told
 * of, must agree with what the server stores (subscription changes and sends of a channel take
 * its lock, lib/channel-locks.ts).
 */
describe('channel membership under concurrency', () => {
  // The API on a pool of ten connections, as in production (chatOnPool).
  const suite = racingClients({ poolMax: 10 });
  const { url, register, expectAllOk } = suite;

  /** A client's member list of `streamId`: from its `add` (or `initial`), then each peer event in order. */
  function memberList(events: QueuedEvent[], streamId: number, initial: number[] = []): number[] {
    const members = new Set(initial);
    for (const e of events) {
      if (e.type !== 'subscription') continue;
      if (e.op === 'add') {
        const sub = (e.subscriptions as { stream_id: number; subscribers: number[] }[]).find(
          (s) => s.stream_id === streamId,
        );
        if (sub) {
          members.clear();
          for (const id of sub.subscribers) members.add(id);
        }
      } else if ((e.stream_ids as number[] | undefined)?.includes(streamId)) {
        for (const id of e.user_ids as number[]) {
          if (e.op === 'peer_add') members.add(id);
          if (e.op === 'peer_remove') members.delete(id);
        }
      }
    }
    return [...members].sort((a, b) => a - b);
  }

  it.each([
    ['private', true],
    ['public', false],
  ])(
    'twelve members added to a %s channel at once by its creator: every list has all thirteen',
    async (kind, inviteOnly) => {
      const owner = await makeUser(suite.stack);
      const members = await Promise.all(Array.from({ length: 12 }, () => makeUser(suite.stack)));
      const name = `inner circle ${kind}`;
      const created = await call(url(), 'POST', '/users/me/subscriptions', owner, {
        subscriptions: [{ name }],
        invite_only: inviteOnly,
      });
      expect(created.status).toBe(200);
      const id = await call(url(), 'GET', '/get_stream_id', owner, { stream: name });
      const streamId = id.body.stream_id as number;
      const everyone = [owner, ...members];
      const queues = await Promise.all(everyone.map((u) => register(u, ['subscription', 'message'])));

      expectAllOk(
        await Promise.all(
          members.map((m) =>
            call(url(), 'POST', '/users/me/subscriptions', owner, {
              subscriptions: [{ name }],
              principals: [m.id],
            }),
          ),
        ),
      );
      // Sent after every addition answered, so it comes after all their events in every queue.
      const marker = await call(url(), 'POST', '/messages', owner, {
        type: 'stream',
        to: streamId,
        topic: 'roll call',
        content: 'everyone here?',
      });
      expect(marker.status).toBe(200);
      const seen = await Promise.all(
        everyone.map((u, i) =>
          waitForEvents(url(), u, queues[i]!, (events) => events.some((e) => e.type === 'message')),
        ),
      );
      const all = everyone.map((u) => u.id).sort((a, b) => a - b);
      const lists = seen.map((events, i) => memberList(events, streamId, i === 0 ? [owner.id] : []));
      expect(lists).toEqual(everyone.map(() => all));
    },
  );

  it('members joining and leaving while others send: each has a message exactly when it was told of it', async () => {
    const senders = await Promise.all(Array.from({ length: 4 }, () => makeUser(suite.stack)));
    const movers = await Promise.all(Array.from({ length: 4 }, () => makeUser(suite.stack)));
    const created = await call(url(), 'POST', '/users/me/subscriptions', senders[0]!, {
      subscriptions: [{ name: 'revolving door' }],
      principals: senders.map((s) => s.id),
    });
    expect(created.status).toBe(200);
    const queues = await Promise.all(movers.map((m) => register(m, ['message'])));
    const door = (user: TestUser, method: 'POST' | 'DELETE') =>
      call(url(), method, '/users/me/subscriptions', user, {
        subscriptions: method === 'POST' ? [{ name: 'revolving door' }] : ['revolving door'],
      });
    const send = (user: TestUser, n: number) =>
      call(url(), 'POST', '/messages', user, {
        type: 'stream',
        to: 'revolving door',
        topic: 'traffic',
        content: `message ${n}`,
      });
    const sending = Promise.all(
      senders.map(async (sender, i) => {
        const replies: Reply[] = [];
        for (let n = 0; n < 60; n++) replies.push(await send(sender, i * 100 + n));
        return replies;
      }),
    );
    const moving = Promise.all(
      movers.map(async (mover) => {
        const replies: Reply[] = [];
        for (let round = 0; round < 14; round++) {
          replies.push(await door(mover, 'POST'));
          replies.push(await door(mover, 'DELETE'));
        }
        return replies;
      }),
    );
    expectAllOk([...(await sending).flat(), ...(await moving).flat()]);
    // Everyone joins for a last message, which ends each queue's traffic.
    expectAllOk(await Promise.all(movers.map((m) => door(m, 'POST'))));
    const last = await send(senders[0]!, -1);
    expect(last.status).toBe(200);
    const lastId = last.body.id as number;

    for (const [i, mover] of movers.entries()) {
      const events = await waitForEvents(url(), mover, queues[i]!, (seen) =>
        seen.some((e) => (e.message as { id: number }).id === lastId),
      );
      const told = events.map((e) => (e.message as { id: number }).id).sort((a, b) => a - b);
      const history = await call(url(), 'GET', '/messages', mover, {
        anchor: 'newest',
        num_before: 1000,
        num_after: 0,
      });
      expect(history.status).toBe(200);
      const stored = (history.body.messages as { id: number }[]).map((m) => m.id).sort((a, b) => a - b);
      expect(stored).toEqual(told);
    }
  });
});
