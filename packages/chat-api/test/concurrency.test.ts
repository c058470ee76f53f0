import { beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, beforeCommit, transact } from '@muse/core';
import { sendEvent } from '../src/domain/lib/events/log.ts';
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
 * Many writers of events at the same moment, over HTTP: every request answers 200 (a deadlock
 * or serialization failure is retried inside, never a 500) and every queue gets each of its
 * events exactly once, in increasing id order.
 */
describe('event producers under concurrency', () => {
  const suite = racingClients();
  const { url, register, expectAllOk } = suite;
  let admin: TestUser;
  beforeAll(async () => {
    admin = await makeUser(suite.stack, { role: 100 });
  });

  function expectIncreasingIds(events: QueuedEvent[]): void {
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  }

  it('eight members post to one channel at once and message each other in a cycle', async () => {
    const members = await Promise.all(Array.from({ length: 8 }, () => makeUser(suite.stack)));
    const created = await call(url(), 'POST', '/users/me/subscriptions', members[0]!, {
      subscriptions: [{ name: 'crowd' }],
      principals: members.map((m) => m.id),
    });
    expect(created.status).toBe(200);
    const queues = await Promise.all(members.map((m) => register(m, ['message'])));
    const rounds = 6;
    const sends = members.flatMap((sender, i) => {
      const next = members[(i + 1) % members.length]!;
      return Array.from({ length: rounds }, (_, round) => [
        call(url(), 'POST', '/messages', sender, {
          type: 'stream',
          to: 'crowd',
          topic: 'rush',
          content: `channel ${i}/${round}`,
        }),
        call(url(), 'POST', '/messages', sender, {
          type: 'direct',
          to: [next.id],
          content: `dm ${i}/${round}`,
        }),
      ]).flat();
    });
    const replies = await Promise.all(sends);
    expectAllOk(replies);
    const sentIds = replies.map((r) => r.body.id as number);
    const channelIds = sentIds.filter((_, n) => n % 2 === 0);
    const dmIds = (i: number) => sentIds.filter((_, n) => n % 2 === 1 && Math.floor(n / (2 * rounds)) === i);
    await Promise.all(
      members.map(async (member, i) => {
        const previous = (i + members.length - 1) % members.length;
        const expected = [...channelIds, ...dmIds(i), ...dmIds(previous)].sort((a, b) => a - b);
        const events = await waitForEvents(
          url(),
          member,
          queues[i]!,
          (seen) => seen.length >= expected.length,
        );
        expectIncreasingIds(events);
        const got = events.map((e) => (e.message as { id: number }).id).sort((a, b) => a - b);
        expect(got).toEqual(expected);
      }),
    );
  });

  it('a transaction committing late holds up no other producer; queues get its event in position order', async () => {
    const [ann, ben] = await Promise.all([makeUser(suite.stack), makeUser(suite.stack)]);
    const queue = await register(ann, ['alert_words', 'message']);
    // Another process's transaction: a handle of its own (the stack's pool has one connection).
    const db = createDatabase(suite.stack.database.url);
    let commit = () => {};
    const released = new Promise<void>((resolve) => (commit = resolve));
    let appended = () => {};
    const eventAppended = new Promise<void>((resolve) => (appended = resolve));
    // Its events are in the log (the before-commit hooks run in order), its commit waits.
    const late = transact(db, async (t) => {
      await sendEvent(db, t, [ann.id], { type: 'alert_words', alert_words: ['late'] });
      beforeCommit(t, async () => {
        appended();
        await released;
      });
    });
    await eventAppended;
    // A message to the same user commits meanwhile (when positions were taken under a row locked
    // until commit, this waited for the late one).
    const sent = await call(url(), 'POST', '/messages', ben, {
      type: 'direct',
      to: [ann.id],
      content: 'on time',
    });
    expect(sent.status).toBe(200);
    const polled = waitForEvents(url(), ann, queue, (seen) => seen.length >= 2);
    commit();
    await late;
    await db.close();
    const events = await polled;
    expect(events.map((e) => e.type)).toEqual(['alert_words', 'message']);
    expectIncreasingIds(events);
  });

  it('two members join and leave channels at the same moment', async () => {
    const [ann, ben, watcher] = await Promise.all([
      makeUser(suite.stack),
      makeUser(suite.stack),
      makeUser(suite.stack),
    ]);
    for (const name of ['north', 'south', 'shared'])
      expect(
        (await call(url(), 'POST', '/users/me/subscriptions', admin, { subscriptions: [{ name }] })).status,
      ).toBe(200);
    const queues = await Promise.all([ann, ben, watcher].map((m) => register(m!, ['subscription'])));
    const rounds = 8;
    for (let round = 0; round < rounds; round++) {
      const channel = (user: TestUser) => (round % 2 === 0 ? (user === ann ? 'north' : 'south') : 'shared');
      const moves = (method: 'POST' | 'DELETE') =>
        [ann!, ben!].map((user) =>
          call(url(), method, '/users/me/subscriptions', user, {
            subscriptions: method === 'POST' ? [{ name: channel(user) }] : [channel(user)],
          }),
        );
      expectAllOk(await Promise.all(moves('POST')));
      expectAllOk(await Promise.all(moves('DELETE')));
    }
    // Each member: its own add and remove every round; the watcher: both members' peer_add and
    // peer_remove every round (public channels are announced to the organization).
    const own = (events: QueuedEvent[]) => events.filter((e) => e.op === 'add' || e.op === 'remove');
    const peers = (events: QueuedEvent[], userId: number) =>
      events.filter(
        (e) => (e.op === 'peer_add' || e.op === 'peer_remove') && (e.user_ids as number[])[0] === userId,
      );
    const [annEvents, benEvents, watcherEvents] = await Promise.all(
      [ann!, ben!, watcher!].map((user, i) =>
        waitForEvents(url(), user, queues[i]!, (seen) =>
          i === 2
            ? peers(seen, ann!.id).length >= 2 * rounds && peers(seen, ben!.id).length >= 2 * rounds
            : own(seen).length >= 2 * rounds,
        ),
      ),
    );
    for (const events of [annEvents!, benEvents!, watcherEvents!]) expectIncreasingIds(events);
    for (const events of [annEvents!, benEvents!])
      expect(own(events).map((e) => e.op)).toEqual(
        Array.from({ length: rounds }, () => ['add', 'remove']).flat(),
      );
    for (const user of [ann!, ben!])
      expect(peers(watcherEvents!, user.id).map((e) => e.op)).toEqual(
        Array.from({ length: rounds }, () => ['peer_add', 'peer_remove']).flat(),
      );
  });

  it('role changes and profile edits while others exchange direct messages and poll', async () => {
    const people = await Promise.all(Array.from({ length: 6 }, () => makeUser(suite.stack)));
    const field = await call(url(), 'POST', '/realm/profile_fields', admin, { name: 'Desk', field_type: 1 });
    expect(field.status).toBe(200);
    const fieldId = field.body.id as number;
    const queues = await Promise.all(people.map((p) => register(p, ['message', 'realm_user'])));
    const [target, editor, ...talkers] = people as [TestUser, TestUser, ...TestUser[]];
    const rounds = 8;
    const work: Promise<Reply>[] = [];
    // The role changes follow each other (each one a change, so each one an event: two sent at once
    // could commit the same value twice, and the second would rightly send nothing); everything
    // else runs beside them.
    let lastRoleChange: Promise<unknown> = Promise.resolve();
    for (let round = 0; round < rounds; round++) {
      const role = round % 2 === 0 ? 300 : 400;
      const change = lastRoleChange.then(() => call(url(), 'PATCH', `/users/${target.id}`, admin, { role }));
      lastRoleChange = change;
      work.push(change);
      work.push(
        call(url(), 'PATCH', '/users/me/profile_data', editor, {
          data: [{ id: fieldId, value: `desk ${round}` }],
        }),
      );
      talkers.forEach((from, i) =>
        work.push(
          call(url(), 'POST', '/messages', from, {
            type: 'direct',
            to: [talkers[(i + 1) % talkers.length]!.id, target.id],
            content: `hello ${round}`,
          }),
        ),
      );
    }
    // The target is in every conversation; each talker sends one and receives one per round.
    const expectedMessages = (person: TestUser) =>
      person === target ? talkers.length * rounds : person === editor ? 0 : 2 * rounds;
    const person = (e: QueuedEvent) => e.person as Record<string, unknown> | undefined;
    const count = (seen: QueuedEvent[]) => ({
      roles: seen.filter((e) => person(e)?.role !== undefined).length,
      desks: seen.filter((e) => person(e)?.custom_profile_field !== undefined).length,
      messages: seen.filter((e) => e.type === 'message').length,
    });
    // Everyone polls while the writes run.
    const polled = people.map((someone, i) =>
      waitForEvents(url(), someone, queues[i]!, (seen) => {
        const n = count(seen);
        return n.roles >= rounds && n.desks >= rounds && n.messages >= expectedMessages(someone);
      }),
    );
    expectAllOk(await Promise.all(work));
    for (const [i, seen] of (await Promise.all(polled)).entries()) {
      expectIncreasingIds(seen);
      expect(count(seen)).toEqual({ roles: rounds, desks: rounds, messages: expectedMessages(people[i]!) });
      const messageIds = seen
        .filter((e) => e.type === 'message')
        .map((e) => (e.message as { id: number }).id);
      expect(new Set(messageIds).size).toBe(messageIds.length);
    }
  });
});
