import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '@muse/core';
import { QueryTypes } from 'sequelize';
import { createContentApp, startStrandedGenerations, workflowIdOf } from '@muse/content-api';
import { createTemporalClient } from '@muse/temporal';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { BUILTIN, balanceOf, getFile, ledgerOf, submit, waitForFile } from '@muse/test-support/generation';

/** A content API whose Temporal address answers nothing: the task must not stay charged. */
describe('submitting while Temporal is unreachable', () => {
  let stack: TestStack;
  let api: RunningServer;
  beforeAll(async () => {
    stack = await startTestStack();
    // Nothing answers there: each start gives up after the call timeout, 1 s (10 s by default).
    const temporal = createTemporalClient('127.0.0.1:1', stack.config.TEMPORAL_NAMESPACE);
    const app = createContentApp({
      config: { ...stack.config, MUSE_TEMPORAL_CALL_TIMEOUT_MS: 1000 },
      logger: stack.logger,
      db: stack.database.db,
      temporal,
      bus: stack.bus,
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
        type: QueryTypes.SELECT,
      },
    );
    const record = await getFile(stack, user, file!.id);
    expect(record.body).toMatchObject({
      status: 'failed',
      error_message: expect.stringMatching(/could not be queued/),
    });
  }, 60_000);
});

describe('a task whose workflow never started', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  const reconcilerDeps = () => ({ ...stack, db: stack.database.db });

  it('is started by the reconciler and completes with its one charge', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    const { body } = await submit(stack, user, 'texts', { generator_id: BUILTIN.text, prompt: 'stranded' });
    // Imitate an API process that died between the commit and the start: the run disappears.
    const [task] = await stack.database.db.query<{ id: string }>(
      'SELECT id FROM content.generations WHERE owner_id = :id',
      {
        replacements: { id: user.id },
        type: QueryTypes.SELECT,
      },
    );
    await stack.temporal.workflow.getHandle(workflowIdOf(task!.id)).terminate('simulated lost start');
    await stack.startWorker();
    expect(await startStrandedGenerations(reconcilerDeps(), 60)).toBe(0); // too recent to count as stranded
    expect(await startStrandedGenerations(reconcilerDeps(), 0)).toBe(1);
    expect((await waitForFile(stack, user, body.file_ids[0]!)).status).toBe('completed');
    expect(await startStrandedGenerations(reconcilerDeps(), 0)).toBe(0);
    expect((await ledgerOf(stack, user.id)).map((e) => [e.kind, e.amount])).toEqual([['charge', -1]]);
  });
});
