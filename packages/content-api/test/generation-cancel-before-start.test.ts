import net from 'node:net';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startStrandedGenerations } from '@muse/content-api';
import { createDatabase } from '@muse/core';
import { createTemporalClient } from '@muse/temporal/client';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { balanceOf, BUILTIN, createGenerator, submit } from '@muse/test-support/generation';
import { startFakeReplicate, type FakeReplicate } from '@muse/test-support/fakes/replicate';
import { api } from '@muse/test-support/login';

/**
 * A TCP relay to Temporal whose client-to-server bytes the test can hold: a workflow start sent
 * through it reaches Temporal only when the test releases it (a slow or delayed start).
 */
async function startHeldRelay(target: string) {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  let holding = false;
  const held: { socket: net.Socket; chunk: Buffer }[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) =>
      holding ? held.push({ socket: upstream, chunk }) : upstream.write(chunk),
    );
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    hold: () => void (holding = true),
    heldBytes: () => held.reduce((sum, { chunk }) => sum + chunk.length, 0),
    release() {
      holding = false;
      for (const { socket, chunk } of held.splice(0)) socket.write(chunk);
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** A submitted task and its workflow's handle, once Temporal has the run (no worker runs it yet). */
async function submittedTask(
  stack: TestStack,
  user: TestUser,
  kind: 'images' | 'videos',
  body: { generator_id: string; prompt: string },
) {
  const answer = await submit(stack, user, kind, body);
  expect(answer.status).toBe(202);
  const [task] = await stack.database.db.query<{ id: string; workflow_id: string }>(
    'SELECT id, workflow_id FROM content.generations WHERE $1 = ANY(file_ids)',
    { bind: [answer.body.file_ids[0]], type: QueryTypes.SELECT },
  );
  const handle = stack.temporal.workflow.getHandle(task!.workflow_id);
  await vi.waitUntil(
    () =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    { timeout: 30_000, interval: 50 },
  );
  return { task: task!, handle };
}

/**
 * Issue 22 item 5: a cancel that arrives before a generation's workflow has started must never be
 * followed by the reconciler starting it, and no money moves twice. Over real HTTP and a real
 * Temporal server: two charged tasks whose workflows never started (their API process "died":
 * the runs are terminated before any worker ran them), the reconciler starting them with its
 * Temporal calls held in a relay, and the owner cancelling the first one meanwhile.
 */
describe('a cancel that races the reconciler starting the workflow', () => {
  let stack: TestStack;
  let replicate: FakeReplicate;
  let generatorId: string;
  let user: TestUser;
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1' });
    const admin = await createTestUser(stack, { admin: true });
    replicate = await startFakeReplicate('r8-test');
    replicate.outcome = 'succeeded';
    replicate.processingMs = 0;
    generatorId = await createGenerator(stack, admin, {
      kind: 'video',
      type: 'replicate',
      base_cost: 2,
      config: { base_url: replicate.url, version: 'v1', poll_interval_seconds: 0.2, max_attempts: 2 },
      secrets: { api_key: 'r8-test' },
    });
    user = await createTestUser(stack, { balance: 10 });
  });
  afterAll(async () => {
    await replicate?.close();
    await stack?.stop();
  });

  /** A charged task whose workflow was lost before any worker ran it (what the reconciler is for). */
  async function strandedTask(prompt: string) {
    const { task, handle } = await submittedTask(stack, user, 'videos', {
      generator_id: generatorId,
      prompt,
    });
    await handle.terminate('the start is lost, as with an API process killed after its commit');
    return task;
  }

  /** The task's ledger entries: its charge and the entries reversing it. */
  async function ledgerOfTask(taskId: string) {
    return stack.database.db.query<{ kind: string; amount: string }>(
      `SELECT kind, amount FROM content.transaction_logs
        WHERE reference = :reference
           OR reverses_id IN (SELECT id FROM content.transaction_logs WHERE reference = :reference)
        ORDER BY created_at`,
      { replacements: { reference: `generation:${taskId}` }, type: QueryTypes.SELECT },
    );
  }

  it('the cancelled task is never started after its cancel, the other runs once; each charged once, the cancelled one refunded once', async () => {
    const cancelled = await strandedTask('cancelled before its start');
    const other = await strandedTask('stranded, then started by the reconciler');
    expect(await balanceOf(stack, user.id)).toBe(6);

    const relay = await startHeldRelay(inject('temporalAddress'));
    const temporal = createTemporalClient(relay.address, stack.config.TEMPORAL_NAMESPACE);
    // The reconciler is another process: a handle of its own (the stack's pool has one connection,
    // which the cancel's request needs while the reconciler holds the task's row).
    const reconcilerDb = createDatabase(stack.database.url);
    try {
      await temporal.connection.ensureConnected();
      // Connected beforehand, as the stack's handle is, so the start is the first thing the relay holds.
      await reconcilerDb.authenticate();
      relay.hold();
      const reconciling = startStrandedGenerations({ ...stack, db: reconcilerDb, temporal }, 0);
      // The reconciler read both tasks and sent the first one's start, which the relay holds.
      await vi.waitUntil(() => relay.heldBytes() > 0, { timeout: 30_000, interval: 20 });

      let cancelAnsweredAt = 0;
      const cancelling = api(stack, `/api/v1/generations/${cancelled.id}/cancel`, {
        method: 'POST',
        headers: user.headers,
      }).then((answer) => ((cancelAnsweredAt = Date.now()), answer));
      // Either the cancel answers at once, or it waits on the task's row for the start to answer.
      const waitingOnLock = vi.waitUntil(
        async () => {
          // Not on the stack's connection: a cancel waiting on the lock holds it.
          const [row] = await reconcilerDb.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            { type: QueryTypes.SELECT },
          );
          return row!.n > 0;
        },
        { timeout: 30_000, interval: 20 },
      );
      await Promise.race([cancelling, waitingOnLock]);
      relay.release();
      const answer = await cancelling;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ id: cancelled.id, status: 'failed', error_message: 'cancelled' });
      await reconciling;

      // The reconciler's start of the cancelled task, if any, came before the cancel answered, and
      // the cancel reached that run.
      const run = await stack.temporal.workflow.getHandle(cancelled.workflow_id).describe();
      expect(run.startTime.getTime()).toBeLessThan(cancelAnsweredAt);
      const history = await stack.temporal.workflow.getHandle(cancelled.workflow_id).fetchHistory();
      expect(history.events?.some((event) => event.workflowExecutionCancelRequestedEventAttributes)).toBe(
        true,
      );
    } finally {
      relay.close();
      await temporal.connection.close().catch(() => {});
      await reconcilerDb.close();
    }

    // Now a worker runs what was started.
    await stack.startWorker();
    const outcomes = await Promise.all(
      [cancelled, other].map((task) => stack.temporal.workflow.getHandle(task.workflow_id).result()),
    );
    expect(outcomes).toEqual([{ status: 'failed', error_message: 'cancelled' }, { status: 'completed' }]);
    const statuses = await stack.database.db.query<{
      id: string;
      status: string;
      error_message: string | null;
    }>('SELECT id, status, error_message FROM content.generations WHERE id IN (:ids)', {
      replacements: { ids: [cancelled.id, other.id] },
      type: QueryTypes.SELECT,
    });
    expect(Object.fromEntries(statuses.map((row) => [row.id, [row.status, row.error_message]]))).toEqual({
      [cancelled.id]: ['failed', 'cancelled'],
      [other.id]: ['completed', null],
    });
    // The upstream was asked once: for the task that was not cancelled.
    expect(replicate.predictionsCreated()).toBe(1);
    expect((await ledgerOfTask(cancelled.id)).map((e) => [e.kind, Number(e.amount)])).toEqual([
      ['charge', -2],
      ['refund', 2],
    ]);
    expect((await ledgerOfTask(other.id)).map((e) => [e.kind, Number(e.amount)])).toEqual([['charge', -2]]);
    expect(await balanceOf(stack, user.id)).toBe(8);
  });
});

/**
 * The workflow's side of the same race: a run cancelled from outside (`temporal workflow cancel`)
 * before its first step still fails and refunds its task, so nothing (the reconciler) starts it
 * again and the charge does not stay taken.
 */
describe('a generation workflow cancelled before its first step', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('fails its task as cancelled and refunds the charge once', async () => {
    const user = await createTestUser(stack, { balance: 3 });
    const { task, handle } = await submittedTask(stack, user, 'images', {
      generator_id: BUILTIN.image,
      prompt: 'never run',
    });
    await handle.cancel(); // no worker runs yet: the run has taken no step
    await stack.startWorker();
    expect(await handle.result()).toEqual({ status: 'failed', error_message: 'cancelled' });
    const [row] = await stack.database.db.query<{ status: string; error_message: string }>(
      'SELECT status, error_message FROM content.generations WHERE id = :id',
      { replacements: { id: task.id }, type: QueryTypes.SELECT },
    );
    expect(row).toEqual({ status: 'failed', error_message: 'cancelled' });
    expect(await balanceOf(stack, user.id)).toBe(3);
    expect(await startStrandedGenerations({ ...stack, db: stack.database.db }, 0)).toBe(0);
  });
});
