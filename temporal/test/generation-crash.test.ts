import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { startTestStack, workerProcessEnv, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { balanceOf, createGenerator, ledgerOf, submit, waitForFile } from '@muse/test-support/generation';
import { startFakeReplicate, type FakeReplicate } from '@muse/test-support/fakes/replicate';
import { startFakeOpenAi } from '@muse/test-support/fakes/openai';
import type { FakeServer } from '@muse/test-support/fakes/server';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';

/**
 * The worker is a real `muse-server worker` process here, killed with SIGKILL in the middle of
 * a task and replaced: Temporal hands the task to the new process, which finishes it with the
 * one charge made at submission and no refund.
 */
describe('a worker killed mid-task', () => {
  let stack: TestStack;
  let admin: TestUser;
  let replicate: FakeReplicate;
  let openai: FakeServer;
  const workers = new Set<MuseProcess>();

  beforeAll(async () => {
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1' });
    admin = await createTestUser(stack, { admin: true });
    replicate = await startFakeReplicate('r8-test');
    openai = await startFakeOpenAi('sk-test');
  });
  // Each test starts from no worker at all, so the task can only go where the test sends it.
  afterEach(async () => {
    for (const worker of workers) await kill(worker);
  });
  afterAll(async () => {
    await replicate.close();
    await openai.close();
    await stack.stop();
  });

  async function startWorkerProcess(): Promise<MuseProcess> {
    const worker = startMuseServer(['worker'], {
      ...workerProcessEnv(stack),
      MUSE_OUTBOUND_ALLOW: stack.config.MUSE_OUTBOUND_ALLOW,
    });
    workers.add(worker);
    void worker.exited().then(() => workers.delete(worker));
    await worker.waitForOutput(/worker running/);
    return worker;
  }

  async function kill(worker: MuseProcess): Promise<void> {
    worker.child.kill('SIGKILL');
    await worker.exited();
  }

  const generationStatus = async (fileId: string) => {
    const [row] = await stack.database.db.query<{ status: string }>(
      'SELECT g.status FROM content.generations g JOIN content.files f ON f.generation_id = g.id WHERE f.id = :fileId',
      { replacements: { fileId }, type: QueryTypes.SELECT },
    );
    return row?.status;
  };

  it('while waiting on a slow asynchronous upstream: the new worker completes the task, one charge, no refund', async () => {
    const generatorId = await createGenerator(stack, admin, {
      kind: 'video',
      type: 'replicate',
      base_cost: 4,
      config: { base_url: replicate.url, version: 'v1', poll_interval_seconds: 0.5 },
      secrets: { api_key: 'r8-test' },
    });
    replicate.processingMs = 5000;
    const user = await createTestUser(stack, { balance: 10 });
    const first = await startWorkerProcess();
    const { status, body } = await submit(stack, user, 'videos', {
      generator_id: generatorId,
      prompt: 'slow',
    });
    expect(status).toBe(202);
    const fileId = body.file_ids[0]!;
    while (replicate.predictionsCreated() === 0 || (await generationStatus(fileId)) !== 'processing')
      await sleep(50);
    await sleep(500);
    await kill(first);

    await startWorkerProcess();
    const file = await waitForFile(stack, user, fileId, 60_000);
    expect(file.status).toBe('completed');
    expect(await balanceOf(stack, user.id)).toBe(6);
    expect((await ledgerOf(stack, user.id)).map((e) => [e.kind, e.amount])).toEqual([['charge', -4]]);
  }, 90_000);

  it('inside an upstream call: the call is retried on the new worker and the task completes, one charge, no refund', async () => {
    const generatorId = await createGenerator(stack, admin, {
      kind: 'text',
      type: 'openai',
      base_cost: 3,
      // The killed call is retried once its attempt times out: 2 × this + 10 s after it started.
      // Not shorter: the new worker's first call also loads its HTTP client, on a busy machine.
      config: { base_url: openai.url, model: 'm', request_timeout_seconds: 2 },
      secrets: { api_key: 'sk-test' },
    });
    openai.script({ slowMs: 2500 });
    const user = await createTestUser(stack, { balance: 10 });
    const worker = await startWorkerProcess();
    const before = openai.requests.length;
    const { body } = await submit(stack, user, 'texts', { generator_id: generatorId, prompt: 'crash' });
    while (openai.requests.length === before) await sleep(20);
    await kill(worker); // the activity is in flight: the upstream is still answering
    await startWorkerProcess();
    const file = await waitForFile(stack, user, body.file_ids[0]!, 60_000);
    expect(file.status).toBe('completed');
    expect(openai.requests.length - before).toBe(2);
    expect(await balanceOf(stack, user.id)).toBe(7);
    expect((await ledgerOf(stack, user.id)).map((e) => [e.kind, e.amount])).toEqual([['charge', -3]]);
  }, 90_000);
});
