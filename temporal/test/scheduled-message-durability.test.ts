import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes } from 'sequelize';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scheduledMessageWorkflowId } from '@muse/chat-api';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';
import { startTestStack, TEST_STICKY_TIMEOUT_MS, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  secondsFromNow,
  waitForEvents,
  type TestUser,
} from '@muse/test-support/chat';

/**
 * Exactly one delivery of a scheduled message, whatever happens around it: the worker holding
 * its timer, or its delivery waiting for the time, is killed (SIGKILL) and replaced, or two API
 * processes edit it at the same time.
 */
/** Temporal's `PendingActivityState` of an activity a worker is running. */
const PENDING_ACTIVITY_STATE_STARTED = 2;

describe('scheduled message delivery survives crashes and concurrent edits', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  const processes = new Set<MuseProcess>();

  /** A real `muse-server <command>` on this stack's database, Temporal and task queue, once ready. */
  const start = async (command: 'worker' | 'chat-api') => {
    const server = startMuseServer([command], {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      MUSE_HOST: '127.0.0.1',
      MUSE_CHAT_PORT: '0',
      MUSE_WORKER_STICKY_TIMEOUT_MS: TEST_STICKY_TIMEOUT_MS,
    });
    processes.add(server);
    const ready = await server.waitForOutput(
      command === 'worker' ? /worker running/ : /"url":"(http:\/\/[^"]+)"/,
    );
    return { server, url: ready[1] };
  };
  /** SIGKILL: no shutdown of any kind, as in a crash. */
  const kill = async (server: MuseProcess) => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server.exited();
  };
  const deliveredCount = async (pattern: string) => {
    const [row] = await stack.database.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM chat.messages WHERE sender_id = :sender AND content LIKE :pattern',
      { replacements: { sender: alice.id, pattern }, type: QueryTypes.SELECT },
    );
    return Number(row!.n);
  };
  const workflowOf = (id: number) =>
    stack.temporal.workflow.getHandle(scheduledMessageWorkflowId(stack.taskQueue, id));
  /**
   * Bob's event queue, the only worker on the task queue, and Alice's direct message to Bob
   * scheduled `seconds` ahead: the set-up of each worker-kill test.
   */
  const scheduleForBob = async (content: string, seconds: number) => {
    const bobQueue = (
      await call(stack.chatUrl, 'POST', '/register', bob, { event_types: ['message'], apply_markdown: true })
    ).body.queue_id as string;
    const { server: worker } = await start('worker');
    const created = await call(stack.chatUrl, 'POST', '/scheduled_messages', alice, {
      type: 'direct',
      to: [bob.id],
      content,
      scheduled_delivery_timestamp: secondsFromNow(seconds),
    });
    expect(created.status).toBe(200);
    const id = created.body.scheduled_message_id as number;
    return { bobQueue, worker, id, handle: workflowOf(id) };
  };

  beforeAll(async () => {
    // Messages due in more than 5 s wait for a timer first, then in the worker; a killed worker's
    // waiting deliveries are retried elsewhere 5 s after its last heartbeat (30 s in production),
    // and its workflows' next tasks go to the new worker after a short sticky timeout (Temporal's: 10 s).
    stack = await startTestStack({
      MUSE_CHAT_HEARTBEAT_MS: '1000',
      MUSE_DELIVERY_WAKE_EARLY_SECONDS: '5',
      MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS: '5000',
    });
    await makeOrganization(stack);
    alice = await makeUser(stack);
    bob = await makeUser(stack);
  });
  afterEach(async () => {
    for (const server of processes) await kill(server);
    processes.clear();
  });
  afterAll(() => stack.stop());

  it('a worker killed while the timer runs is replaced; the message is delivered exactly once', async () => {
    // Its timer runs 5 s (10 s ahead, woken 5 s early): time to see it start and kill the worker.
    const { bobQueue, worker: first, handle } = await scheduleForBob('crash-proof', 10);
    // The only worker on this task queue has run the workflow up to its durable timer.
    for (;;) {
      const history = await handle.fetchHistory();
      if (history.events?.some((event) => event.timerStartedEventAttributes)) break;
      await sleep(100);
    }
    await kill(first);
    expect(await deliveredCount('crash-proof')).toBe(0);
    // Killed before its timer fired: nothing was handed to the dead worker.
    const history = await handle.fetchHistory();
    expect(history.events?.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);

    await start('worker');
    const events = await waitForEvents(stack.chatUrl, bob, bobQueue, (seen) => seen.length > 0, 90_000);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'message',
        message: expect.objectContaining({ content: '<p>crash-proof</p>' }),
      }),
    ]);
    expect(await handle.result()).toBe('delivered');
    expect(await deliveredCount('crash-proof')).toBe(1);
  }, 240_000);

  it('a worker killed while a delivery waits in it for the time is replaced; sent once, not early', async () => {
    const { bobQueue, worker: first, id, handle } = await scheduleForBob('waited through a crash', 10);
    // Woken 5 s early, the delivery activity now sleeps in the only worker.
    for (;;) {
      const { raw } = await handle.describe();
      if (raw.pendingActivities?.[0]?.state === PENDING_ACTIVITY_STATE_STARTED) break;
      await sleep(100);
    }
    await kill(first);
    expect(await deliveredCount('waited through a crash')).toBe(0);

    // Its heartbeats stop: Temporal retries the attempt on the new worker.
    await start('worker');
    await waitForEvents(stack.chatUrl, bob, bobQueue, (seen) => seen.length > 0, 90_000);
    expect(await handle.result()).toBe('delivered');
    expect(await deliveredCount('waited through a crash')).toBe(1);
    const [row] = await stack.database.db.query<{ late_ms: number }>(
      `SELECT (extract(epoch FROM delivered_at - deliver_at) * 1000)::float8 AS late_ms
         FROM chat.scheduled_messages WHERE id = :id`,
      { replacements: { id }, type: QueryTypes.SELECT },
    );
    expect(row!.late_ms).toBeGreaterThanOrEqual(0);
  }, 240_000);

  it('two API processes editing the same scheduled message concurrently: one delivery, of the last edit', async () => {
    const [second] = await Promise.all([start('chat-api'), start('worker')]);
    const urls = [stack.chatUrl, second.url!];
    const bobQueue = (
      await call(stack.chatUrl, 'POST', '/register', bob, { event_types: ['message'], apply_markdown: true })
    ).body.queue_id as string;
    const created = await call(urls[0]!, 'POST', '/scheduled_messages', alice, {
      type: 'direct',
      to: [bob.id],
      content: 'edit original',
      scheduled_delivery_timestamp: secondsFromNow(11),
    });
    const id = created.body.scheduled_message_id as number;
    const edits = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(urls[i % 2]!, 'PATCH', `/scheduled_messages/${id}`, alice, {
          content: `edit ${i}`,
          scheduled_delivery_timestamp: secondsFromNow(8 + (i % 3)),
        }),
      ),
    );
    expect(edits.map((edit) => edit.status)).toEqual(edits.map(() => 200));
    const [final] = (await call(urls[1]!, 'GET', '/scheduled_messages', alice)).body.scheduled_messages as {
      content: string;
      scheduled_delivery_timestamp: number;
    }[];

    const events = await waitForEvents(stack.chatUrl, bob, bobQueue, (seen) => seen.length > 0, 90_000);
    expect(events).toEqual([
      expect.objectContaining({ message: expect.objectContaining({ content: `<p>${final!.content}</p>` }) }),
    ]);
    // Not before the time of the last edit (the workflow kept the newest plan).
    const sentAt = (events[0]!.message as { timestamp: number }).timestamp;
    expect(sentAt).toBeGreaterThanOrEqual(final!.scheduled_delivery_timestamp);
    expect(await workflowOf(id).result()).toBe('delivered');
    expect(await deliveredCount('edit %')).toBe(1);
  }, 240_000);
});
