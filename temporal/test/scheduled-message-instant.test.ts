import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledMessageWorkflowId } from '@muse/chat-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  secondsFromNow,
  waitUntil,
  type TestUser,
} from '@muse/test-support/chat';

/** Temporal's `PendingActivityState` of an activity a worker is running. */
const PENDING_ACTIVITY_STATE_STARTED = 2;
/** Enough deliveries at one instant that, sent one after another on the worker's pool, some finish well before others. */
const COUNT = 40;

/**
 * Many scheduled messages due at one instant in one worker: every one is sent before Temporal
 * hears of any of their completions, so its bookkeeping does not compete with the sends.
 */
describe('deliveries due at one instant', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  const workflowOf = (id: number) =>
    stack.temporal.workflow.getHandle(scheduledMessageWorkflowId(stack.taskQueue, id));
  const ms = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

  beforeAll(async () => {
    // Each workflow hands its message to the worker as soon as it is created.
    stack = await startTestStack({ MUSE_DELIVERY_WAKE_EARLY_SECONDS: '60' });
    await makeOrganization(stack);
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    await stack.startWorker({ workloads: ['delivery'] });
  });
  afterAll(() => stack.stop());

  it('are all sent before any of their activities completes; each once, none early', async () => {
    // Far enough ahead for a busy machine to create them all and start every delivery first
    // (a few seconds; the wait below fails the test if they did not start before the time).
    const second = secondsFromNow(15);
    const ids: number[] = [];
    for (let i = 0; i < COUNT; i++) {
      const created = await call(stack.chatUrl, 'POST', '/scheduled_messages', alice, {
        type: 'direct',
        to: [bob.id],
        content: `instant ${i}`,
        scheduled_delivery_timestamp: second,
      });
      expect(created.status).toBe(200);
      ids.push(created.body.scheduled_message_id as number);
    }
    const started = async (id: number) =>
      (await workflowOf(id).describe()).raw.pendingActivities?.[0]?.state === PENDING_ACTIVITY_STATE_STARTED;
    await waitUntil(
      async () => (await Promise.all(ids.map(started))).every(Boolean),
      'every delivery to wait in the worker',
      second * 1000 - Date.now(),
    );
    for (const id of ids) expect(await workflowOf(id).result()).toBe('delivered');

    const sent = await stack.database.db.query<{ content: string; sent_ms: number; late_ms: number }>(
      `SELECT m.content, (extract(epoch FROM s.delivered_at) * 1000)::float8 AS sent_ms,
              (extract(epoch FROM s.delivered_at - s.deliver_at) * 1000)::float8 AS late_ms
         FROM chat.messages m JOIN chat.scheduled_messages s ON s.delivered_message_id = m.id
        WHERE m.sender_id = :sender AND m.content LIKE 'instant %'`,
      { replacements: { sender: alice.id }, type: QueryTypes.SELECT },
    );
    expect(new Set(sent.map((row) => row.content)).size).toBe(COUNT);
    expect(sent).toHaveLength(COUNT);
    expect(sent.filter((row) => row.late_ms < 0)).toEqual([]);

    // The last send began (its transaction's time) before Temporal recorded the first completion.
    const completed = await Promise.all(
      ids.map(async (id) => {
        const history = await workflowOf(id).fetchHistory();
        const event = history.events?.find((e) => e.activityTaskCompletedEventAttributes);
        return ms(event?.eventTime);
      }),
    );
    const lastSend = Math.max(...sent.map((row) => row.sent_ms));
    const firstCompletion = Math.min(...completed);
    expect(firstCompletion).toBeGreaterThan(lastSend);
  }, 180_000);
});
