import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, workerProcessEnv, type TestStack } from '@muse/test-support/stack';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';

// Child processes load every workspace module, and the command runs webpack twice: slow on a busy machine.
const PROCESS_TEST_TIMEOUT_MS = 240_000;

/**
 * `muse-server bundle-workflows <dir>` writes the bundles at build time (the image's), and a
 * worker started with MUSE_WORKFLOW_BUNDLE_DIR=<dir> loads the one of its variant instead of
 * bundling at start; a missing one stops the start.
 */
describe('prebuilt workflow bundles', () => {
  let stack: TestStack;
  let dir: string;
  const workers: MuseProcess[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
    dir = await mkdtemp(path.join(os.tmpdir(), 'muse-bundles-'));
    const command = startMuseServer(['bundle-workflows', path.join(dir, 'bundles')], { NODE_ENV: 'test' });
    expect(await command.exited(), command.output()).toBe(0);
  }, PROCESS_TEST_TIMEOUT_MS);
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });
  afterAll(async () => {
    await stack.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function startWorker(env: Record<string, string>): MuseProcess {
    const worker = startMuseServer(['worker'], { ...workerProcessEnv(stack), ...env });
    workers.push(worker);
    return worker;
  }

  async function ping(): Promise<string> {
    const result = await stack.temporal.workflow.execute('pingWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `ping-bundle-${Date.now()}`,
      args: ['from the prebuilt bundle'],
    });
    return result.message;
  }

  it('writes the two variants and nothing else', async () => {
    expect((await readdir(path.join(dir, 'bundles'))).sort()).toEqual([
      'workflows-tracing.js',
      'workflows.js',
    ]);
  });

  it(
    'runs a workflow from the bundle without tracing, bundling nothing at start',
    async () => {
      const worker = startWorker({ MUSE_WORKFLOW_BUNDLE_DIR: path.join(dir, 'bundles') });
      await worker.waitForOutput(/worker running/);
      expect(await ping()).toBe('from the prebuilt bundle');
      const loaded = /"workflowBundle":"([^"]+)".*"msg":"workflow bundle loaded"/.exec(worker.output());
      expect(loaded?.[1]).toBe(path.join(dir, 'bundles', 'workflows.js'));
      expect(worker.output()).not.toMatch(/bundled at start/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'loads the tracing variant when tracing is on',
    async () => {
      const worker = startWorker({
        MUSE_WORKFLOW_BUNDLE_DIR: path.join(dir, 'bundles'),
        // Nothing listens there: the spans are lost, the worker runs the same.
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      });
      await worker.waitForOutput(/worker running/);
      expect(await ping()).toBe('from the prebuilt bundle');
      const loaded = /"workflowBundle":"([^"]+)".*"msg":"workflow bundle loaded"/.exec(worker.output());
      expect(loaded?.[1]).toBe(path.join(dir, 'bundles', 'workflows-tracing.js'));
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'fails to start, naming the command, when the directory holds no bundle',
    async () => {
      const empty = path.join(dir, 'empty');
      const worker = startWorker({ MUSE_WORKFLOW_BUNDLE_DIR: empty });
      expect(await worker.exited()).toBe(1);
      expect(worker.output()).toContain(
        `MUSE_WORKFLOW_BUNDLE_DIR: no workflow bundle at ${path.join(empty, 'workflows.js')}; run \`muse-server bundle-workflows ${empty}\``,
      );
      expect(worker.output()).not.toMatch(/worker running/);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
