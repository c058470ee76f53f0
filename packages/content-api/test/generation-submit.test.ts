import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { QueryTypes } from 'sequelize';
import { payloadsOf } from '@muse/core';
import { FILE_STATUS_CHANNEL, type FileStatusEvent } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import {
  BUILTIN,
  balanceOf,
  createGenerator,
  ledgerOf,
  submit,
  waitForFile,
} from '@muse/test-support/generation';

describe('submitting generations', () => {
  let stack: TestStack;
  let admin: TestUser;
  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
  });
  afterAll(() => stack.stop());

  const countGenerations = async (ownerId: string) => {
    const [row] = await stack.database.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM content.generations WHERE owner_id = :ownerId',
      { replacements: { ownerId }, type: QueryTypes.SELECT },
    );
    return Number(row!.n);
  };

  it('answers 401 without a token', async () => {
    const response = await fetch(`${stack.contentUrl}/api/v1/generations/images`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ generator_id: BUILTIN.image, prompt: 'x' }),
    });
    expect(response.status).toBe(401);
  });

  it('answers 403 when generation:create:own is revoked', async () => {
    const user = await createTestUser(stack, { balance: 10, revoked: ['generation:create:own'] });
    const { status, body } = await submit(stack, user, 'images', {
      generator_id: BUILTIN.image,
      prompt: 'x',
    });
    expect(status).toBe(403);
    expect(body.code).toBe('forbidden');
    expect(await balanceOf(stack, user.id)).toBe(10);
  });

  it('answers 404 for an unknown generator, one of another kind, and a deactivated one', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const unknown = await submit(stack, user, 'images', {
      generator_id: '3f2c4a9e-1111-4222-8333-944455556666',
      prompt: 'x',
    });
    expect(unknown.status).toBe(404);
    const wrongKind = await submit(stack, user, 'images', { generator_id: BUILTIN.text, prompt: 'x' });
    expect(wrongKind.status).toBe(404);
    const id = await createGenerator(stack, admin, { kind: 'image', type: 'builtin', base_cost: 1 });
    const deleted = await fetch(`${stack.contentUrl}/api/v1/generators/${id}`, {
      method: 'DELETE',
      headers: admin.headers,
    });
    expect(deleted.status).toBe(204);
    const inactive = await submit(stack, user, 'images', { generator_id: id, prompt: 'x' });
    expect(inactive.status).toBe(404);
    expect(await balanceOf(stack, user.id)).toBe(10);
    expect(await countGenerations(user.id)).toBe(0);
  });

  it('answers 422 with the failing paths when the body violates the generator schema', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const { status, body } = await submit(stack, user, 'images', {
      generator_id: BUILTIN.image,
      prompt: '',
      count: 9,
      aspect_ratio: 'wide',
      colour: 'red',
    });
    expect(status).toBe(422);
    expect(body.code).toBe('validation_error');
    const paths = (body.details as { path: string }[]).map((d) => d.path).sort();
    expect(paths).toEqual(['/aspect_ratio', '/colour', '/count', '/prompt']);
    expect(await balanceOf(stack, user.id)).toBe(10);
  });

  it('answers 422 for a request body the document already refuses (generator_id not a UUID)', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const { status, body } = await submit(stack, user, 'texts', { generator_id: 'nope', prompt: 'x' });
    expect(status).toBe(422);
    expect(JSON.stringify(body.details)).toContain('generator_id');
  });

  it('answers 422 naming the reference that is missing or another user’s private file, and charges nothing', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const other = await createTestUser(stack, { balance: 10 });
    const otherFile = await submit(stack, other, 'images', {
      generator_id: BUILTIN.image,
      prompt: 'private',
    });
    await waitForFile(stack, other, otherFile.body.file_ids[0]!);
    const own = await submit(stack, user, 'images', { generator_id: BUILTIN.image, prompt: 'mine' });
    await waitForFile(stack, user, own.body.file_ids[0]!);
    const { status, body } = await submit(stack, user, 'videos', {
      generator_id: BUILTIN.video,
      prompt: 'x',
      reference_file_ids: [
        own.body.file_ids[0],
        otherFile.body.file_ids[0],
        '3f2c4a9e-1111-4222-8333-944455556666',
      ],
    });
    expect(status).toBe(422);
    expect((body.details as { path: string }[]).map((d) => d.path)).toEqual([
      '/reference_file_ids/1',
      '/reference_file_ids/2',
    ]);
    expect(await balanceOf(stack, user.id)).toBe(9);

    const accepted = await submit(stack, user, 'videos', {
      generator_id: BUILTIN.video,
      prompt: 'x',
      reference_file_ids: [own.body.file_ids[0]],
    });
    expect(accepted.status).toBe(202);
  });

  it('answers 402 when the balance is below the generator’s base_cost, and writes nothing', async () => {
    const dear = await createGenerator(stack, admin, { kind: 'image', type: 'builtin', base_cost: 5 });
    const user = await createTestUser(stack, { balance: 4 });
    const { status, body } = await submit(stack, user, 'images', { generator_id: dear, prompt: 'x' });
    expect(status).toBe(402);
    expect(body.code).toBe('insufficient_balance');
    expect(await balanceOf(stack, user.id)).toBe(4);
    expect(await countGenerations(user.id)).toBe(0);
    const [files] = await stack.database.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM content.files WHERE owner_id = :id',
      {
        replacements: { id: user.id },
        type: QueryTypes.SELECT,
      },
    );
    expect(Number(files!.n)).toBe(0);
  });

  it('charges base_cost per task: a balance that covers it buys any count of images and any duration of video', async () => {
    const images = await createGenerator(stack, admin, { kind: 'image', type: 'builtin', base_cost: 3 });
    const video = await createGenerator(stack, admin, { kind: 'video', type: 'builtin', base_cost: 3 });
    const user = await createTestUser(stack, { balance: 6 });
    const four = await submit(stack, user, 'images', { generator_id: images, prompt: 'x', count: 4 });
    expect(four.status).toBe(202);
    expect(four.body.file_ids).toHaveLength(4);
    const long = await submit(stack, user, 'videos', { generator_id: video, prompt: 'x', duration: 30 });
    expect(long.status).toBe(202);
    expect((await ledgerOf(stack, user.id)).map((entry) => [entry.kind, entry.amount])).toEqual([
      ['charge', -3],
      ['charge', -3],
    ]);
    expect(await balanceOf(stack, user.id)).toBe(0);
  });

  it('refuses a result count outside 1 to 10 (422 naming /count) even when the generator schema allows it, and writes nothing', async () => {
    const loose = {
      type: 'object',
      required: ['generator_id', 'prompt'],
      properties: {
        generator_id: { type: 'string', format: 'uuid' },
        prompt: { type: 'string' },
        count: { type: 'integer' },
      },
    };
    const free = await createGenerator(stack, admin, {
      kind: 'image',
      type: 'builtin',
      base_cost: 0,
      parameters_schema: loose,
    });
    const user = await createTestUser(stack, { balance: 5 });
    for (const count of [0, -1, 11, 500]) {
      const { status, body } = await submit(stack, user, 'images', {
        generator_id: free,
        prompt: 'x',
        count,
      });
      expect({ count, status }).toEqual({ count, status: 422 });
      expect(body.details).toEqual([{ path: '/count', message: expect.stringContaining('1 to 10') }]);
    }
    expect(await countGenerations(user.id)).toBe(0);
    expect(await balanceOf(stack, user.id)).toBe(5);
  });

  it('accepts exactly 10 of 50 concurrent submits with a balance for 10; the balance never goes negative', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        submit(stack, user, 'texts', { generator_id: BUILTIN.text, prompt: `race ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    expect(await balanceOf(stack, user.id)).toBe(0);
    expect(await ledgerOf(stack, user.id)).toHaveLength(10);
    expect(await countGenerations(user.id)).toBe(10);
  });

  it('answers a retried submit with the same Idempotency-Key with the first answer and charges once, even when racing', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const body = { generator_id: BUILTIN.text, prompt: 'only once' };
    const first = await submit(stack, user, 'texts', body, { 'Idempotency-Key': 'key-1' });
    const again = await submit(stack, user, 'texts', body, { 'Idempotency-Key': 'key-1' });
    expect(first.status).toBe(202);
    expect(again).toEqual(first);

    const racing = await Promise.all(
      Array.from({ length: 8 }, () =>
        submit(stack, user, 'texts', { ...body, prompt: 'racing' }, { 'Idempotency-Key': 'key-2' }),
      ),
    );
    expect(racing.every((r) => r.status === 202)).toBe(true);
    expect(new Set(racing.map((r) => r.body.file_ids[0])).size).toBe(1);
    expect(await balanceOf(stack, user.id)).toBe(8);
    expect(await countGenerations(user.id)).toBe(2);

    const conflict = await submit(
      stack,
      user,
      'texts',
      { ...body, prompt: 'different' },
      { 'Idempotency-Key': 'key-1' },
    );
    expect(conflict.status).toBe(409);
    expect(await balanceOf(stack, user.id)).toBe(8);
  });

  it('announces every status change of the result files on the event bus, each after its commit', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    const seen: { event: FileStatusEvent; stored: Promise<string> }[] = [];
    const unsubscribe = await stack.bus.subscribe(FILE_STATUS_CHANNEL, (message) => {
      for (const event of payloadsOf(message) as FileStatusEvent[]) {
        if (event.owner_id !== user.id) continue;
        // What another connection reads the moment the announcement arrives.
        const stored = stack.database.db
          .query<{ status: string }>('SELECT status FROM content.files WHERE id = :id', {
            replacements: { id: event.file_id },
            type: QueryTypes.SELECT,
          })
          .then(([row]) => row?.status ?? 'missing');
        seen.push({ event, stored });
      }
    });
    const { body } = await submit(stack, user, 'texts', { generator_id: BUILTIN.text, prompt: 'events' });
    await waitForFile(stack, user, body.file_ids[0]!);
    await vi.waitUntil(() => seen.length >= 3, { timeout: 10_000 });
    await unsubscribe();
    expect(seen.map((e) => e.event.status)).toEqual(['pending', 'processing', 'completed']);
    expect(seen.every((e) => e.event.file_id === body.file_ids[0])).toBe(true);
    const order = ['pending', 'processing', 'completed'];
    for (const { event, stored } of seen)
      expect(order.indexOf(await stored)).toBeGreaterThanOrEqual(order.indexOf(event.status));
  });
});
