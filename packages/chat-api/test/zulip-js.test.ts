import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipComponent, expectZulipSchema } from './zulip-schema.ts';

const script = fileURLToPath(new URL('./fixtures/zulip-js-client.mjs', import.meta.url));

describe('the zulip-js client library against a running server', () => {
  let stack: TestStack;
  let user: TestUser;
  let peer: TestUser;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '1000' });
    await makeOrganization(stack);
    user = await makeUser(stack, { name: 'Jo Script' });
    peer = await makeUser(stack, { name: 'Pat Peer' });
    // What the client reads: a mention with a link in a channel, and a direct message, both from the peer.
    await call(stack.chatUrl, 'POST', '/users/me/subscriptions', peer, {
      subscriptions: [{ name: 'js-reading' }],
      principals: [user.id, peer.id],
    });
    const send = async (params: Record<string, unknown>) =>
      (await call(stack.chatUrl, 'POST', '/messages', peer, params)).body.id as number;
    ids.plan = await send({
      type: 'stream',
      to: 'js-reading',
      topic: 'plans',
      content: '@**Jo Script** the plan is at https://example.com/plan',
    });
    ids.dm = await send({
      type: 'direct',
      to: JSON.stringify([user.id]),
      content: 'a private word from Pat',
    });
  });
  afterAll(() => stack.stop());

  it('fetches a key, subscribes, reads alert words, registers, reads events, deregisters, schedules, edits and deletes a scheduled message, creates drafts, searches a narrow, renders Markdown, reads every narrow operator and matches_narrow, gets the events of a narrowed queue, and follows callOnEachEvent', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [script, stack.chatUrl, user.email, user.password, String(user.id), peer.email, String(peer.id)],
      {
        timeout: 50_000,
      },
    );
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<
      string,
      Record<string, unknown>
    >;
    expect(report.error).toBeUndefined();
    expect(report.apiKey).toBe(user.apiKey);

    expect(report.subscribe).toMatchObject({
      result: 'success',
      subscribed: { [String(user.id)]: ['zulip-js', 'zulip-js-2'] },
    });
    expectZulipSchema('/users/me/subscriptions', 'post', report.subscribe);
    expect(report.alertWords).toEqual({ result: 'success', msg: '', alert_words: [] });
    expectZulipSchema('/register', 'post', report.register);
    // DELETE parameters arrive comma-joined in the query string.
    expect(report.unsubscribe).toMatchObject({ result: 'success', removed: ['zulip-js', 'zulip-js-2'] });
    const events = report.events?.events as { type: string; op: string }[];
    expect(events.map((e) => `${e.type}/${e.op}`)).toEqual(['subscription/remove', 'subscription/remove']);
    expect(report.deregister).toEqual({ result: 'success', msg: '' });
    expect(report.afterDeregister).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID' });
    expect(report.schedule).toMatchObject({ result: 'success', scheduled_message_id: expect.any(Number) });
    expectZulipSchema('/scheduled_messages', 'post', report.schedule);
    expectZulipSchema('/scheduled_messages/{scheduled_message_id}', 'patch', report.editScheduled);
    expectZulipSchema('/scheduled_messages', 'get', report.scheduledAfterEdit);
    expect(report.scheduledAfterEdit?.scheduled_messages).toEqual([
      expect.objectContaining({
        scheduled_message_id: report.schedule?.scheduled_message_id,
        type: 'private',
        to: [user.id],
        content: 'note to self, edited',
      }),
    ]);
    expectZulipSchema('/scheduled_messages/{scheduled_message_id}', 'delete', report.deleteScheduled);
    expect(report.scheduledAfterDelete?.scheduled_messages).toEqual([]);
    expectZulipSchema('/drafts', 'post', report.createDrafts);
    expect(report.createDrafts?.ids).toHaveLength(2);
    expectZulipSchema('/drafts', 'get', report.drafts);
    expect((report.drafts?.drafts as { content: string }[]).map((d) => d.content).sort()).toEqual([
      'draft one',
      'draft two',
    ]);
    expectZulipSchema('/messages', 'get', report.search);
    expect(report.search?.messages).toEqual([
      expect.objectContaining({
        content: '<p>Searching for quick foxes</p>',
        match_content: '<p>Searching for quick <span class="highlight">foxes</span></p>',
      }),
    ]);
    expect(report.render).toMatchObject({ result: 'success', rendered: '<p><strong>bold</strong></p>' });

    // Every narrow operator, each answer Zulip's shape.
    const narrows = report.narrows as unknown as Record<string, { messages: { id: number }[] }>;
    const found = Object.fromEntries(
      Object.entries(narrows).map(([name, answer]) => {
        expectZulipSchema('/messages', 'get', answer);
        return [name, answer.messages.map((m) => m.id)];
      }),
    );
    const selfDm = (report.search?.messages as { id: number }[])[0]!.id;
    expect(found).toEqual({
      mentioned: [ids.plan],
      channelAndTopic: [ids.plan],
      channelById: [ids.plan],
      senderById: [ids.plan, ids.dm],
      senderMe: [selfDm],
      negatedSender: [ids.dm],
      pmWith: [ids.dm],
      dmIds: [ids.dm],
      dmIncluding: [ids.dm],
      groupPmWith: [ids.dm],
      starred: [ids.plan],
      unread: [ids.plan, ids.dm],
      hasLink: [ids.plan],
      id: [ids.plan],
      near: [ids.plan],
      with: [ids.plan],
      channelsPublic: [ids.plan],
      searchTopic: [ids.plan],
    });
    expectZulipSchema('/messages/flags', 'post', report.starred);
    expect(report.badNarrow).toEqual({
      result: 'error',
      msg: "Invalid narrow operator: unknown 'is' operand",
      code: 'BAD_NARROW',
    });
    expectZulipComponent('CodedError', report.badNarrow);
    expectZulipSchema('/messages/matches_narrow', 'get', report.matches);
    expect(Object.keys(report.matches?.messages as object)).toEqual([String(ids.plan)]);

    // The narrowed queue: the direct message only (registered without apply_markdown: its Markdown, as in Zulip).
    expectZulipSchema('/register', 'post', report.narrowedRegister);
    const queued = (
      report.narrowedEvents as unknown as { type: string; message?: { content: string } }[]
    ).filter((e) => e.type === 'message');
    expect(queued.map((e) => e.message?.content)).toEqual(['for the queue']);
    const followed = report.callOnEachEvent as unknown as { type: string; op?: string }[];
    expect(followed.at(-1)).toMatchObject({ type: 'subscription', op: 'add' });
  }, 60_000);
});
