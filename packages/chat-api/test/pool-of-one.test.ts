import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolSize } from '@muse/test-support/database';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';

const MEMBERS = 20;

/**
 * Issue 37: every write endpoint at once, by twenty members, against an API whose pool has one
 * connection. A request that held its transaction's connection while asking the pool for another
 * (a message locked FOR UPDATE, then the channel or an attachment read outside the transaction)
 * waited for itself: 503 after the acquire timeout. Now each request's statements run in its
 * transaction, so one connection serves them all in turn.
 */
describe('the messaging API on a pool of one connection', () => {
  let stack: TestStack;
  let members: TestUser[];
  const url = () => stack.chatUrl;
  const send = async (user: TestUser, topic: string, content: string) => {
    const reply = await call(url(), 'POST', '/messages', user, {
      type: 'stream',
      to: 'burst',
      topic,
      content,
    });
    expect(reply.status).toBe(200);
    return reply.body.id as number;
  };
  const upload = async (user: TestUser, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([`contents of ${name}`], { type: 'text/plain' }), name);
    const response = await fetch(`${url()}/api/v1/user_uploads`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}` },
      body: form,
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { url: string }).url;
  };

  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    members = [];
    for (let i = 0; i < MEMBERS; i++) members.push(await makeUser(stack));
    const created = await call(url(), 'POST', '/users/me/subscriptions', members[0]!, {
      subscriptions: [{ name: 'burst' }],
      principals: members.map((m) => m.id),
    });
    expect(created.status).toBe(200);
  });
  afterAll(() => stack.stop());

  it('has one pooled connection', () => {
    expect(poolSize(stack.database.db)).toBe(1);
  });

  it('answers 20 members reacting, editing, moving, deleting and linking uploads at once', async () => {
    const target = await send(members[0]!, 'react here', 'react to me');
    const own = await Promise.all(
      members.map(async (m, i) => ({
        edit: await send(m, `edits ${i}`, 'first draft'),
        move: await send(m, `moves ${i}`, 'to be moved'),
        gone: await send(m, `deletes ${i}`, 'to be deleted'),
        file: await upload(m, `notes-${i}.txt`),
      })),
    );
    const burst = members.flatMap((m, i) => [
      call(url(), 'POST', `/messages/${target}/reactions`, m, { emoji_name: 'octopus' }),
      call(url(), 'PATCH', `/messages/${own[i]!.edit}`, m, { content: `second draft ${i}` }),
      call(url(), 'PATCH', `/messages/${own[i]!.move}`, m, {
        topic: `moved ${i}`,
        propagate_mode: 'change_all',
      }),
      call(url(), 'DELETE', `/messages/${own[i]!.gone}`, m),
      call(url(), 'POST', '/messages', m, {
        type: 'stream',
        to: 'burst',
        topic: `files ${i}`,
        content: `[notes](${own[i]!.file})`,
      }),
    ]);
    const replies = await Promise.all(burst);
    const failed = replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body.msg}`);
    expect(failed).toEqual([]);

    const reacted = await call(url(), 'GET', `/messages/${target}`, members[0]!);
    expect((reacted.body.message as { reactions: unknown[] }).reactions).toHaveLength(MEMBERS);
    const edited = await call(url(), 'GET', `/messages/${own[3]!.edit}`, members[3]!);
    expect((edited.body.message as { content: string }).content).toContain('second draft 3');
    const gone = await call(url(), 'GET', `/messages/${own[5]!.gone}`, members[5]!);
    expect(gone.status).toBe(400);
    const attachments = await call(url(), 'GET', '/attachments', members[7]!);
    const [linked] = attachments.body.attachments as { messages: unknown[] }[];
    expect(linked!.messages).toHaveLength(1);
  });
});
