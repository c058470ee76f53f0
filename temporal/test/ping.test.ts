import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';

describe('a workflow round trip through the worker', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
  });
  afterAll(() => stack.stop());

  it('runs pingWorkflow on the real Temporal dev server and reads the database in an activity', async () => {
    const before = Date.now();
    const result = await stack.temporal.workflow.execute('pingWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `ping-${before}`,
      args: ['hello'],
    });
    expect(result.message).toBe('hello');
    expect(Date.parse(result.databaseTime)).toBeGreaterThanOrEqual(before - 5000);
  });
});
