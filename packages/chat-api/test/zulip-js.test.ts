import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

const script = fileURLToPath(new URL('./fixtures/zulip-js-client.mjs', import.meta.url));

describe('the zulip-js client library against a running server', () => {
  let stack: TestStack;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '1000' });
    await makeOrganization(stack);
    user = await makeUser(stack);
  });
  afterAll(() => stack.stop());

  it('fetches a key, subscribes, reads alert words, registers, reads events, deregisters, schedules, edits and deletes a scheduled message, creates drafts, searches a narrow, renders Markdown, and follows callOnEachEvent', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [script, stack.chatUrl, user.email, user.password, String(user.id)],
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
    const followed = report.callOnEachEvent as unknown as { type: string; op?: string }[];
    expect(followed.at(-1)).toMatchObject({ type: 'subscription', op: 'add' });
  }, 60_000);
});
