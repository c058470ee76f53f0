import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { api } from '@muse/test-support/login';
import { balanceOf, createGenerator, ledgerOf, submit, waitForFile } from '@muse/test-support/generation';
import { startFakeOpenAi } from '@muse/test-support/fakes/openai';
import { startFakeReplicate, type FakeReplicate } from '@muse/test-support/fakes/replicate';
import type { FakeServer } from '@muse/test-support/fakes/server';

/**
 * What a task costs (spec: base_cost is "credits charged per task"), and the per-unit pricing an
 * administrator may opt a generator into; refunds of failed tasks give back exactly the charge.
 */
describe('generation pricing', () => {
  let stack: TestStack;
  let admin: TestUser;
  let openai: FakeServer;
  let replicate: FakeReplicate;
  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    openai = await startFakeOpenAi('sk-test');
    replicate = await startFakeReplicate('r8-test');
    replicate.processingMs = 0;
  });
  afterAll(async () => {
    await openai.close();
    await replicate.close();
    await stack.stop();
  });

  const imageGenerator = (pricing?: Record<string, unknown>) =>
    createGenerator(stack, admin, {
      kind: 'image',
      type: 'openai',
      base_cost: 2,
      config: { base_url: openai.url, model: 'fake-model', max_attempts: 1, ...(pricing ? { pricing } : {}) },
      secrets: { api_key: 'sk-test' },
    });

  const videoGenerator = (pricing?: Record<string, unknown>) =>
    createGenerator(stack, admin, {
      kind: 'video',
      type: 'replicate',
      base_cost: 2,
      config: {
        base_url: replicate.url,
        version: 'v1',
        max_attempts: 1,
        poll_interval_seconds: 1,
        ...(pricing ? { pricing } : {}),
      },
      secrets: { api_key: 'r8-test' },
    });

  const generatorAsUser = async (id: string) => {
    const user = await createTestUser(stack);
    return (await api(stack, `/api/v1/generators/${id}`, { headers: user.headers })).body;
  };

  const entries = async (id: string) =>
    (await ledgerOf(stack, id)).map((entry) => [entry.kind, entry.amount]);

  it('charges base_cost per task by default, shows it, and refunds exactly that when the task fails', async () => {
    const id = await imageGenerator();
    expect((await generatorAsUser(id)).pricing).toEqual({ mode: 'per_task' });
    const user = await createTestUser(stack, { balance: 2 });
    openai.script('reject');
    const answer = await submit(stack, user, 'images', { generator_id: id, prompt: 'x', count: 3 });
    expect(answer.status).toBe(202);
    expect(answer.body.file_ids).toHaveLength(3);
    expect((await waitForFile(stack, user, answer.body.file_ids[0]!)).status).toBe('failed');
    expect(await entries(user.id)).toEqual([
      ['charge', -2],
      ['refund', 2],
    ]);
    expect(await balanceOf(stack, user.id)).toBe(2);
  });

  it('per-unit pricing (opted into) charges base_cost × count for images: 402 below it, the refund matches the charge', async () => {
    const id = await imageGenerator({ mode: 'per_unit' });
    expect((await generatorAsUser(id)).pricing).toEqual({ mode: 'per_unit', video_unit_seconds: 5 });
    const poor = await createTestUser(stack, { balance: 5 });
    const refused = await submit(stack, poor, 'images', { generator_id: id, prompt: 'x', count: 3 });
    expect(refused.status).toBe(402);
    expect(await ledgerOf(stack, poor.id)).toEqual([]);

    const user = await createTestUser(stack, { balance: 6 });
    openai.script('reject');
    const answer = await submit(stack, user, 'images', { generator_id: id, prompt: 'x', count: 3 });
    expect(answer.status).toBe(202);
    expect((await waitForFile(stack, user, answer.body.file_ids[0]!)).status).toBe('failed');
    expect(await entries(user.id)).toEqual([
      ['charge', -6],
      ['refund', 6],
    ]);
  });

  it('per-unit video pricing charges per started video_unit_seconds of duration; per task a video costs base_cost', async () => {
    const perUnit = await videoGenerator({ mode: 'per_unit', video_unit_seconds: 4 });
    replicate.outcome = 'failed';
    const user = await createTestUser(stack, { balance: 10 });
    const answer = await submit(stack, user, 'videos', { generator_id: perUnit, prompt: 'x', duration: 9 });
    expect(answer.status).toBe(202);
    expect((await waitForFile(stack, user, answer.body.file_ids[0]!, 45_000)).status).toBe('failed');
    expect(await entries(user.id)).toEqual([
      ['charge', -6],
      ['refund', 6],
    ]);

    const perTask = await videoGenerator();
    replicate.outcome = 'succeeded';
    const other = await createTestUser(stack, { balance: 2 });
    const done = await submit(stack, other, 'videos', { generator_id: perTask, prompt: 'x', duration: 30 });
    expect(done.status).toBe(202);
    expect((await waitForFile(stack, other, done.body.file_ids[0]!, 45_000)).status).toBe('completed');
    expect(await entries(other.id)).toEqual([['charge', -2]]);
  }, 60_000);

  it('refuses a pricing block it cannot apply (422 naming it), on create and on change', async () => {
    const bad = [
      [{ mode: 'per_second' }, 'mode'],
      [{ mode: 'per_unit', video_unit_seconds: 0 }, 'video_unit_seconds'],
      [{ mode: 'per_unit', extra: 1 }, 'extra'],
    ] as const;
    for (const [pricing, named] of bad) {
      const created = await api(stack, '/api/v1/generators', {
        method: 'POST',
        headers: admin.headers,
        body: {
          name: `bad pricing ${named}`,
          kind: 'video',
          type: 'builtin',
          base_cost: 1,
          config: { pricing },
        },
      });
      expect({ named, status: created.status }).toEqual({ named, status: 422 });
      expect(JSON.stringify(created.body.details)).toContain(named);
    }
    const id = await imageGenerator();
    const changed = await api(stack, `/api/v1/generators/${id}`, {
      method: 'PATCH',
      headers: admin.headers,
      body: { config: { base_url: openai.url, pricing: 'per_unit' } },
    });
    expect(changed.status).toBe(422);
    expect(JSON.stringify(changed.body.details)).toContain('pricing');
  });
});
