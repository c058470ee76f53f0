import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { api } from '@muse/test-support/login';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';
import { BUILTIN, balanceOf, createGenerator, ledgerOf } from '@muse/test-support/generation';
import { startFakeOpenAi } from '@muse/test-support/fakes/openai';
import type { FakeServer } from '@muse/test-support/fakes/server';

/**
 * 504 and 529 (spec, Errors): a submit with `Prefer: wait` answers the task's end, and a
 * generator whose upstream rate-limits answers 529 to every API process until its Retry-After.
 */
describe('waiting submits and upstream health (fake upstream over HTTP)', { timeout: 120_000 }, () => {
  let stack: TestStack;
  let admin: TestUser;
  let openai: FakeServer;
  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
    admin = await createTestUser(stack, { admin: true });
    openai = await startFakeOpenAi('sk-test');
  });
  afterAll(async () => {
    await openai.close();
    await stack.stop();
  });

  const textGenerator = (config: Record<string, unknown> = {}) =>
    createGenerator(stack, admin, {
      kind: 'text',
      type: 'openai',
      base_cost: 2,
      config: { base_url: openai.url, model: 'fake-model', max_attempts: 1, ...config },
      secrets: { api_key: 'sk-test' },
    });

  const post = (
    url: string,
    user: TestUser,
    generatorId: string,
    headers: Record<string, string> = {},
    kind = 'texts',
  ) =>
    api({ ...stack, contentUrl: url }, `/api/v1/generations/${kind}`, {
      method: 'POST',
      headers: { ...user.headers, ...headers },
      body: { generator_id: generatorId, prompt: 'a lighthouse' },
    });

  const generationsOf = async (ownerId: string) => {
    const [row] = await stack.database.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM content.generations WHERE owner_id = :ownerId',
      { replacements: { ownerId }, type: QueryTypes.SELECT },
    );
    return Number(row!.n);
  };

  it('answers the finished file records (200) when the task completes within the wait', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    const answer = await post(stack.contentUrl, user, BUILTIN.image, { Prefer: 'wait' }, 'images');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('preference-applied')).toBe('wait=60');
    expect(answer.body.status).toBe('completed');
    expect(answer.body.files).toHaveLength(1);
    expect(answer.body.files[0]).toMatchObject({
      id: answer.body.file_ids[0],
      status: 'completed',
      download_url: expect.any(String),
    });
    const content = await fetch(answer.body.files[0].download_url);
    expect(content.status).toBe(200);
  });

  it('answers the usual 202 (with Preference-Applied) when the wait runs out first; a longer wait is capped at 60 s', async () => {
    const slow = await createGenerator(stack, admin, {
      kind: 'text',
      type: 'builtin',
      base_cost: 1,
      config: { delay_ms: 10_000 },
    });
    const user = await createTestUser(stack, { balance: 5 });
    const answer = await post(stack.contentUrl, user, slow, { Prefer: 'respond-async, wait=1' });
    expect(answer.status).toBe(202);
    expect(answer.headers.get('preference-applied')).toBe('wait=1');
    expect(answer.body).toEqual({ file_ids: [expect.any(String)], status: 'pending' });

    const capped = await post(stack.contentUrl, user, BUILTIN.text, { Prefer: 'wait=3600' });
    expect(capped.status).toBe(200);
    expect(capped.headers.get('preference-applied')).toBe('wait=60');
  });

  it('ignores a Prefer header without a usable wait (202 at once, no Preference-Applied)', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    for (const prefer of ['wait=soon', 'wait=0', 'return=minimal']) {
      const answer = await post(stack.contentUrl, user, BUILTIN.text, { Prefer: prefer });
      expect({ prefer, status: answer.status }).toEqual({ prefer, status: 202 });
      expect(answer.headers.get('preference-applied')).toBeNull();
    }
  });

  it('answers 504 when the upstream timed out within the wait, and the task is refunded', async () => {
    const id = await textGenerator({ request_timeout_seconds: 1 });
    const user = await createTestUser(stack, { balance: 5 });
    openai.script('hang');
    const answer = await post(stack.contentUrl, user, id, { Prefer: 'wait=50' });
    expect(answer.status).toBe(504);
    expect(answer.headers.get('preference-applied')).toBe('wait=50');
    expect(answer.body.code).toBe('upstream_timeout');
    expect(answer.body.details.file_ids).toHaveLength(1);
    expect((await ledgerOf(stack, user.id)).map((entry) => [entry.kind, entry.amount])).toEqual([
      ['charge', -2],
      ['refund', 2],
    ]);
    expect(await balanceOf(stack, user.id)).toBe(5);
  });

  it('answers the failed records (200) for a failure that is neither a timeout nor a rate limit', async () => {
    const id = await textGenerator();
    const user = await createTestUser(stack, { balance: 5 });
    openai.script('reject');
    const answer = await post(stack.contentUrl, user, id, { Prefer: 'wait' });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('failed');
    expect(answer.body.files[0]).toMatchObject({ status: 'failed', error_message: expect.any(String) });
    expect(await balanceOf(stack, user.id)).toBe(5);
  });

  describe('a rate-limited upstream', () => {
    let other: MuseProcess;
    let otherUrl: string;
    beforeAll(async () => {
      // A second API process on the same database: the health state is Postgres's, not a process's.
      other = startMuseServer(['content-api'], {
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        DATABASE_URL: stack.database.url,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
        MUSE_HOST: '127.0.0.1',
        MUSE_CONTENT_PORT: '0',
        MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
        MUSE_SECRETS_KEY: stack.config.MUSE_SECRETS_KEY!,
      });
      [, otherUrl] = (await other.waitForOutput(/"url":"(http:\/\/[^"]+)"/)) as unknown as [string, string];
    });
    afterAll(() => other?.stop());

    it('answers 529 with Retry-After to a waiting submit, then to every submit on every API process, charging nothing', async () => {
      const id = await textGenerator();
      const healthy = await textGenerator();
      const user = await createTestUser(stack, { balance: 5 });
      openai.script({ rateLimit: { retryAfterSeconds: 40 } });
      const waited = await post(stack.contentUrl, user, id, { Prefer: 'wait' });
      expect(waited.status).toBe(529);
      expect(waited.body.code).toBe('upstream_rate_limited');
      const retryAfter = Number(waited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(40);
      expect((await ledgerOf(stack, user.id)).map((entry) => [entry.kind, entry.amount])).toEqual([
        ['charge', -2],
        ['refund', 2],
      ]);

      const later = await createTestUser(stack, { balance: 5 });
      for (const url of [stack.contentUrl, otherUrl]) {
        const refused = await post(url, later, id);
        expect({ url, status: refused.status }).toEqual({ url, status: 529 });
        expect(refused.body.code).toBe('upstream_rate_limited');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(40);
      }
      expect(await ledgerOf(stack, later.id)).toEqual([]);
      expect(await generationsOf(later.id)).toBe(0);
      expect(await balanceOf(stack, later.id)).toBe(5);

      // Only that generator: another one of the same upstream still takes tasks.
      const served = await post(otherUrl, later, healthy, { Prefer: 'wait' });
      expect(served.status).toBe(200);
      expect(served.body.status).toBe('completed');
    });

    it('takes tasks again once the Retry-After has passed', async () => {
      const id = await textGenerator();
      const user = await createTestUser(stack, { balance: 5 });
      openai.script({ rateLimit: { retryAfterSeconds: 1 } });
      expect((await post(stack.contentUrl, user, id, { Prefer: 'wait' })).status).toBe(529);
      await stack.database.db.query(
        `UPDATE content.generator_health SET rate_limited_until = now() - interval '1 second' WHERE generator_id = :id`,
        { replacements: { id } },
      );
      const again = await post(otherUrl, user, id, { Prefer: 'wait' });
      expect(again.status).toBe(200);
      expect(again.body.status).toBe('completed');
    });
  });
});
