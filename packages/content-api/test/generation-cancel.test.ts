import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import {
  BUILTIN,
  balanceOf,
  createGenerator,
  getFile,
  ledgerOf,
  submit,
  waitForFile,
} from '@muse/test-support/generation';
import { startFakeReplicate, type FakeReplicate } from '@muse/test-support/fakes/replicate';
import { api } from '@muse/test-support/login';

/** Cancelling a generation: the endpoint, and a workflow cancelled from outside (`temporal workflow cancel`). */
describe('cancelling a generation', () => {
  let stack: TestStack;
  let admin: TestUser;
  let replicate: FakeReplicate;
  let generatorId: string;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1' });
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    replicate = await startFakeReplicate('r8-test');
    replicate.outcome = 'never';
    generatorId = await createGenerator(stack, admin, {
      kind: 'video',
      type: 'replicate',
      base_cost: 2,
      config: { base_url: replicate.url, version: 'v1', poll_interval_seconds: 0.2, max_attempts: 2 },
      secrets: { api_key: 'r8-test' },
    });
  });
  afterAll(async () => {
    await replicate.close();
    await stack.stop();
  });

  /** A task whose upstream prediction is running (the workflow is polling it). */
  async function runningTask(user: TestUser) {
    const created = replicate.predictionsCreated();
    const answer = await submit(stack, user, 'videos', { generator_id: generatorId, prompt: 'x' });
    expect(answer.status).toBe(202);
    const fileId = answer.body.file_ids[0]!;
    for (let i = 0; i < 300 && replicate.predictionsCreated() === created; i++)
      await new Promise((r) => setTimeout(r, 50));
    const [task] = await stack.database.db.query<{ id: string; workflow_id: string }>(
      'SELECT id, workflow_id FROM content.generations WHERE $1 = ANY(file_ids)',
      { bind: [fileId], type: QueryTypes.SELECT },
    );
    return { fileId, taskId: task!.id, workflowId: task!.workflow_id };
  }

  const cancel = (user: TestUser, taskId: string) =>
    api(stack, `/api/v1/generations/${taskId}/cancel`, { method: 'POST', headers: user.headers });

  it('the owner cancels: failed with "cancelled", refunded once, the upstream prediction cancelled', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    const { fileId, taskId, workflowId } = await runningTask(user);
    const answer = await cancel(user, taskId);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id: taskId,
      file_ids: [fileId],
      status: 'failed',
      error_message: 'cancelled',
    });
    expect((await getFile(stack, user, fileId)).body).toMatchObject({
      status: 'failed',
      error_message: 'cancelled',
    });
    expect(await balanceOf(stack, user.id)).toBe(5);
    // The workflow ends after cancelling the upstream; its own compensation finds the task ended.
    await stack.temporal.workflow
      .getHandle(workflowId)
      .result()
      .catch(() => undefined);
    expect(replicate.cancelled.length).toBeGreaterThan(0);
    expect((await ledgerOf(stack, user.id)).map((e) => e.kind)).toEqual(['charge', 'refund']);
    const again = await cancel(user, taskId);
    expect(again.status).toBe(409);
    expect(await balanceOf(stack, user.id)).toBe(5);
  });

  it("someone else's task is 404; an administrator may cancel it", async () => {
    const owner = await createTestUser(stack, { balance: 2 });
    const stranger = await createTestUser(stack, { balance: 2 });
    const { taskId } = await runningTask(owner);
    expect((await cancel(stranger, taskId)).status).toBe(404);
    expect((await cancel(owner, '00000000-0000-4000-8000-00000000dead')).status).toBe(404);
    expect((await cancel(admin, taskId)).status).toBe(200);
    expect(await balanceOf(stack, owner.id)).toBe(2);
  });

  it('a completed task cannot be cancelled (409), and keeps its charge', async () => {
    const user = await createTestUser(stack, { balance: 3 });
    const answer = await submit(stack, user, 'texts', { generator_id: BUILTIN.text, prompt: 'x' });
    const file = await waitForFile(stack, user, answer.body.file_ids[0]!);
    expect(file.status).toBe('completed');
    const [task] = await stack.database.db.query<{ id: string }>(
      'SELECT id FROM content.generations WHERE $1 = ANY(file_ids)',
      { bind: [file.id], type: QueryTypes.SELECT },
    );
    const refused = await cancel(user, task!.id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    expect(await balanceOf(stack, user.id)).toBe(3 - 1);
  });

  it('a workflow cancelled from outside (temporal workflow cancel) still refunds: compensation is not cancellable', async () => {
    const user = await createTestUser(stack, { balance: 4 });
    const { fileId, workflowId } = await runningTask(user);
    await stack.temporal.workflow.getHandle(workflowId).cancel();
    const file = await waitForFile(stack, user, fileId);
    expect(file).toMatchObject({ status: 'failed', error_message: 'cancelled' });
    expect(await balanceOf(stack, user.id)).toBe(4);
    expect((await ledgerOf(stack, user.id)).map((e) => e.kind)).toEqual(['charge', 'refund']);
  });
});
