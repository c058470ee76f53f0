import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { closeApp, listen } from '@muse/core';
import { createContentApp, startStrandedGenerations, workflowIdOf } from '@muse/content-api';
import { createTemporalClient } from '@muse/temporal';
import { submitGeneration, type SubmitDeps } from '../src/generations/submit.ts';
import { WorkflowStarter } from '../src/generations/starter.ts';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { BUILTIN, balanceOf, ledgerOf, waitForFile } from '@muse/test-support/generation';

/**
 * The workflow start off the request path: the committed task is the outbox. These drive
 * submitGeneration with a starter standing for an API process that answered 202 and then died,
 * or whose Temporal stopped answering after the answer.
 */
describe('workflow starts off the request path', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  const depsOf = (starter?: WorkflowStarter): SubmitDeps => ({
    db: stack.database.db,
    temporal: stack.temporal,
    config: stack.config,
    logger: stack.logger,
    ...(starter ? { starter } : {}),
  });
  const userOf = (user: TestUser) => ({
    id: user.id,
    phone: user.phone,
    isAdmin: false,
    granted: [],
    revoked: [],
  });
  const taskOf = async (fileId: string) => {
    const [task] = await stack.database.db.query<{ id: string; status: string }>(
      'SELECT g.id, g.status FROM content.generations g JOIN content.files f ON f.generation_id = g.id WHERE f.id = :fileId',
      { replacements: { fileId }, type: QueryTypes.SELECT },
    );
    return task!;
  };

  it('a task whose API process died after the commit runs once, with one charge, when the reconciler finds it', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    // Accepting, but the process "dies" before its queue is drained: nothing is started.
    const lost = { accepting: true, enqueue() {}, noteOutcome() {} } as unknown as WorkflowStarter;
    const body = { generator_id: BUILTIN.text, prompt: 'lost start' };
    const { answer } = await submitGeneration(depsOf(lost), userOf(user), 'text', body, undefined);
    expect(answer.status).toBe('pending');
    const task = await taskOf(answer.file_ids[0]!);
    expect(task.status).toBe('pending');
    await expect(stack.temporal.workflow.getHandle(workflowIdOf(task.id)).describe()).rejects.toThrow();

    await stack.database.db.query(
      `UPDATE content.generations SET created_at = now() - interval '2 minutes' WHERE owner_id = :id`,
      { replacements: { id: user.id } },
    );
    await stack.startWorker();
    expect(await startStrandedGenerations({ ...stack, db: stack.database.db }, 60)).toBe(1);
    expect((await waitForFile(stack, user, answer.file_ids[0]!)).status).toBe('completed');
    expect(await startStrandedGenerations({ ...stack, db: stack.database.db }, 0)).toBe(0);
    expect((await ledgerOf(stack, user.id)).map((e) => [e.kind, e.amount])).toEqual([['charge', -1]]);
    expect(await balanceOf(stack, user.id)).toBe(4);
  });

  it('an API process that stops makes its queued starts first: every task it accepted has its workflow', async () => {
    const user = await createTestUser(stack, { balance: 100 });
    // Its own connection to Temporal, closed as the process would exit: a start not made by then
    // never is. Starts wait at a gate, so that they are still queued when the process stops.
    const temporal = createTemporalClient(stack.config.TEMPORAL_ADDRESS!, stack.config.TEMPORAL_NAMESPACE);
    let gate = Promise.resolve();
    const start = temporal.workflow.start.bind(temporal.workflow);
    temporal.workflow.start = (async (...args: Parameters<typeof start>) => {
      await gate;
      return start(...args);
    }) as typeof start;
    const app = createContentApp({ ...stack, db: stack.database.db, temporal });
    const server = await listen(app, {
      host: '127.0.0.1',
      port: 0,
      logger: stack.logger,
      shutdownTimeoutMs: 1000,
    });
    const submit = async (prompt: string) => {
      const response = await fetch(`${server.url}/api/v1/generations/texts`, {
        method: 'POST',
        headers: { ...user.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ generator_id: BUILTIN.text, prompt }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { file_ids: string[] }).file_ids[0]!;
    };
    // The first submit starts its own workflow (Temporal has not answered this process yet);
    // the next ones are answered at once and their starts queued.
    const fileIds = [await submit('first')];
    let release = () => {};
    gate = new Promise((resolve) => (release = resolve));
    fileIds.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => submit(`queued ${i}`)))));
    await server.close();
    const closing = closeApp(app);
    release();
    await closing;
    await temporal.connection.close();
    for (const fileId of fileIds) {
      const task = await taskOf(fileId);
      await expect(
        stack.temporal.workflow.getHandle(workflowIdOf(task.id)).describe(),
      ).resolves.toBeDefined();
    }
  });

  it('a queued start that Temporal refuses fails and refunds the task, and the next submit answers 503', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    // Nothing answers there: each start gives up after the call timeout, 1 s (10 s by default).
    const deps = {
      ...depsOf(),
      config: { ...stack.config, MUSE_TEMPORAL_CALL_TIMEOUT_MS: 1000 },
      temporal: createTemporalClient('127.0.0.1:1', stack.config.TEMPORAL_NAMESPACE),
    };
    const starter = new WorkflowStarter(deps);
    starter.noteOutcome(true); // Temporal answered the last start; then it went away.
    const body = { generator_id: BUILTIN.text, prompt: 'engine gone' };
    const { answer } = await submitGeneration({ ...deps, starter }, userOf(user), 'text', body, undefined);
    expect(answer.status).toBe('pending');
    const file = await waitForFile(stack, user, answer.file_ids[0]!, 60_000);
    expect(file).toMatchObject({
      status: 'failed',
      error_message: expect.stringMatching(/could not be queued/),
    });
    expect((await ledgerOf(stack, user.id)).map((e) => e.kind)).toEqual(['charge', 'refund']);
    expect(starter.accepting).toBe(false);
    await expect(
      submitGeneration({ ...deps, starter }, userOf(user), 'text', body, undefined),
    ).rejects.toMatchObject({ status: 503 });
    expect(await balanceOf(stack, user.id)).toBe(5);
  }, 60_000);
});
