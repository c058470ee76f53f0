import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '@muse/core';
import { createContentApp } from '@muse/content-api';
import { createTemporalClient } from '@muse/temporal';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { createTestUser } from '../../../test/support/content.ts';
import { BUILTIN, balanceOf, getFile, ledgerOf } from '../../../test/support/generation.ts';

/** A content API whose Temporal address answers nothing: the task must not stay charged. */
describe('submitting while Temporal is unreachable', () => {
  let stack: TestStack;
  let api: RunningServer;
  beforeAll(async () => {
    stack = await startTestStack();
    const temporal = createTemporalClient('127.0.0.1:1', stack.config.TEMPORAL_NAMESPACE);
    const app = createContentApp({
      config: stack.config,
      logger: stack.logger,
      db: stack.database.db,
      temporal,
      events: stack.events,
    });
    api = await listen(app, { host: '127.0.0.1', port: 0, logger: stack.logger, shutdownTimeoutMs: 500 });
  });
  afterAll(async () => {
    await api.close();
    await stack.stop();
  });

  it('answers 503, and the task is failed and refunded at once; the Idempotency-Key stays usable', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    const response = await fetch(`${api.url}/api/v1/generations/texts`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json', 'Idempotency-Key': 'k' },
      body: JSON.stringify({ generator_id: BUILTIN.text, prompt: 'nowhere to go' }),
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe('unavailable');
    expect(await balanceOf(stack, user.id)).toBe(5);
    expect((await ledgerOf(stack, user.id)).map((e) => e.kind)).toEqual(['charge', 'refund']);
    const [file] = await stack.database.db.query<{ id: string }>(
      'SELECT id FROM content.files WHERE owner_id = :id',
      {
        replacements: { id: user.id },
        type: (await import('sequelize')).QueryTypes.SELECT,
      },
    );
    const record = await getFile(stack, user, file!.id);
    expect(record.body).toMatchObject({
      status: 'failed',
      error_message: expect.stringMatching(/could not be queued/),
    });
  }, 60_000);
});
