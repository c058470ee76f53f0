import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, taskQueueOf, workloadsOf, WORKLOADS } from '@muse/core';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { BUILTIN, getFile, submit, waitForFile } from '@muse/test-support/generation';
import { call, makeOrganization, makeUser, secondsFromNow, waitForEvents } from '@muse/test-support/chat';

describe('workloads: a task queue and worker slots each', () => {
  it('generation keeps the base queue; the others get their own; a worker serves the ones named', () => {
    const config = loadConfig({ TEMPORAL_TASK_QUEUE: 'muse', MUSE_WORKER_WORKLOADS: 'delivery, payments' });
    expect(WORKLOADS.map((workload) => taskQueueOf(config, workload))).toEqual([
      'muse',
      'muse-delivery',
      'muse-payments',
    ]);
    expect(workloadsOf(config)).toEqual(['delivery', 'payments']);
    expect(workloadsOf(loadConfig({}))).toEqual([...WORKLOADS]);
    expect(() => loadConfig({ MUSE_WORKER_WORKLOADS: 'generation,emails' })).toThrow(/MUSE_WORKER_WORKLOADS/);
  });

  /**
   * The stall the split removes: a generation backlog of any size (here: no worker for it at all)
   * holds up nothing on the delivery queue. On one shared queue the delivery worker would have
   * run the generation too, and the backlog would have been in front of the message.
   */
  describe('a generation backlog does not delay scheduled messages', () => {
    let stack: TestStack;

    beforeAll(async () => {
      stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '1000' });
      await stack.startWorker({ workloads: ['delivery'] });
    });
    afterAll(() => stack.stop());

    it('a worker serving deliveries delivers a message due while generations wait on their own queue', async () => {
      const user = await createTestUser(stack, { balance: 100 });
      const submitted = await submit(stack, user, 'images', { generator_id: BUILTIN.image, prompt: 'x' });
      expect(submitted.status).toBe(202);

      await makeOrganization(stack);
      const [alice, bob] = [await makeUser(stack), await makeUser(stack)];
      const queue = await call(stack.chatUrl, 'POST', '/register', bob, { event_types: ['message'] });
      const scheduled = await call(stack.chatUrl, 'POST', '/scheduled_messages', alice, {
        type: 'direct',
        to: [bob.id],
        content: 'on time despite the backlog',
        scheduled_delivery_timestamp: secondsFromNow(2),
      });
      expect(scheduled.status).toBe(200);
      const events = await waitForEvents(stack.chatUrl, bob, queue.body.queue_id as string, (seen) =>
        seen.some((event) => event.type === 'message'),
      );
      expect(events.find((event) => event.type === 'message')?.message).toMatchObject({
        sender_id: alice.id,
      });
      // The generation is still waiting on its own queue: this worker never took it.
      const file = await getFile(stack, user, submitted.body.file_ids[0]!);
      expect(file.body.status).toBe('pending');

      // A worker for generations takes the backlog from there.
      await stack.startWorker({ workloads: ['generation'] });
      expect((await waitForFile(stack, user, submitted.body.file_ids[0]!)).status).toBe('completed');
    });
  });
});
