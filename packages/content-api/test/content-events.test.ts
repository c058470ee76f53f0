import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { QueryTypes } from 'sequelize';
import { Redis } from 'ioredis';
import { freePort } from '@muse/core';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';
import { BUILTIN, createGenerator, submit } from '@muse/test-support/generation';
import { startFakeReplicate, type FakeReplicate } from '@muse/test-support/fakes/replicate';
import { startRedis } from '@muse/test-support/redis';
import { startMuseServer, waitUntilServing, type MuseProcess } from '@muse/test-support/processes';
import { FrameChecker, wsClient, type WsClient } from '@muse/test-support/sockets';

/**
 * The content API announces after commit, batched per process, and every consumer reads the
 * tables for what an announcement lost. A lost announcement is made here by writing the change
 * with SQL alone (as a process killed between its commit and its publish would leave it).
 */
describe('content events: catch-up reads cover a lost announcement', () => {
  let stack: TestStack;
  let checker: FrameChecker;
  let replicate: FakeReplicate;
  let generatorId: string;
  const clients: WsClient[] = [];
  beforeAll(async () => {
    stack = await startTestStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1' });
    await stack.startWorker();
    checker = await FrameChecker.load(stack.contentUrl);
    replicate = await startFakeReplicate('r8-test');
    replicate.outcome = 'never';
    const admin = await createTestUser(stack, { admin: true });
    generatorId = await createGenerator(stack, admin, {
      kind: 'video',
      type: 'replicate',
      base_cost: 1,
      config: { base_url: replicate.url, version: 'v1', poll_interval_seconds: 0.2, max_attempts: 2 },
      secrets: { api_key: 'r8-test' },
    });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    expect(checker.violations).toEqual([]);
  });
  afterAll(async () => {
    await replicate?.close();
    await stack?.stop();
  });

  async function openSocket(user: TestUser) {
    const created = await call(stack.contentUrl, 'POST', '/api/v1/conversations', user, { title: 'Chat' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const client = wsClient(stack.contentUrl, id, user.token, checker);
    clients.push(client);
    await client.next((frame) => frame.type === 'ready');
    return { id, client };
  }

  /** Stores a message as appendMessage does, but announces nothing. */
  async function storeSilently(conversationId: string, author: TestUser, content: string) {
    await stack.database.db.query(
      `WITH numbered AS (
         UPDATE content.conversations SET message_seq = message_seq + 1 WHERE id = :conversationId RETURNING message_seq)
       INSERT INTO content.conversation_messages (conversation_id, author_id, role, content, seq)
       SELECT :conversationId, :authorId, 'user', :content, message_seq FROM numbered`,
      { replacements: { conversationId, authorId: author.id, content } },
    );
  }

  it('a message stored without an announcement reaches the open sockets', async () => {
    const alice = await createTestUser(stack);
    const { id, client } = await openSocket(alice);
    await storeSilently(id, alice, 'never announced');
    const frame = await client.next((f) => f.type === 'message');
    expect(frame.message).toMatchObject({ content: 'never announced', seq: 1 });
  });

  it('a message announced before an earlier unannounced one comes after it, in storage order', async () => {
    const alice = await createTestUser(stack);
    const { id, client } = await openSocket(alice);
    await storeSilently(id, alice, 'first, never announced');
    const posted = await call(stack.contentUrl, 'POST', `/api/v1/conversations/${id}/messages`, alice, {
      role: 'user',
      content: 'second, announced',
    });
    expect(posted.status).toBe(201);
    await client.next((f) => f.type === 'message' && f.message.seq === 2);
    expect(
      client.frames.filter((f) => f.type === 'message').map((f) => [f.message.seq, f.message.content]),
    ).toEqual([
      [1, 'first, never announced'],
      [2, 'second, announced'],
    ]);
  });

  it('a waiting submit answers from the table when the end of its task was not announced', async () => {
    const user = await createTestUser(stack, { balance: 5 });
    // The upstream never finishes; the task is ended by SQL alone, with no announcement.
    const waiting = fetch(`${stack.contentUrl}/api/v1/generations/videos`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json', prefer: 'wait=60' },
      body: JSON.stringify({ generator_id: generatorId, prompt: 'ended silently' }),
    });
    let taskId: string | undefined;
    await vi.waitUntil(
      async () => {
        const [row] = await stack.database.db.query<{ id: string }>(
          `SELECT id FROM content.generations WHERE owner_id = :owner AND status = 'processing'`,
          { replacements: { owner: user.id }, type: QueryTypes.SELECT },
        );
        taskId = row?.id;
        return Boolean(taskId);
      },
      { timeout: 30_000, interval: 50 },
    );
    const endedAt = Date.now();
    await stack.database.db.query(
      `WITH task AS (UPDATE content.generations SET status = 'failed', error_message = 'ended elsewhere',
                            failure_kind = 'failed' WHERE id = :taskId RETURNING id)
       UPDATE content.files SET status = 'failed', error_message = 'ended elsewhere'
        WHERE generation_id IN (SELECT id FROM task)`,
      { replacements: { taskId } },
    );
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      status: 'failed',
      files: [{ status: 'failed', error_message: 'ended elsewhere' }],
    });
    // Well before the 60 s wait ran out: the wait read the table again (every 2 s).
    expect(Date.now() - endedAt).toBeLessThan(30_000);
  });
});

/**
 * MUSE_EVENT_BUS=redis: the content API's conversation and file-status events travel on Redis
 * Streams (a real redis-server) between a real `muse-server content-api` process and the stack's
 * API and worker, not through Postgres.
 */
describe('content events over Redis Streams', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let stack: TestStack;
  let pod: { url: string; process: MuseProcess };
  let checker: FrameChecker;
  const clients: WsClient[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    const bus = { MUSE_EVENT_BUS: 'redis', MUSE_REDIS_URL: redis.url };
    stack = await startTestStack(bus);
    await stack.startWorker();
    const port = await freePort();
    const process = startMuseServer(['content-api'], {
      ...bus,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      MUSE_HOST: '127.0.0.1',
      MUSE_CONTENT_PORT: String(port),
      MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
    });
    pod = { url: `http://127.0.0.1:${port}`, process };
    await waitUntilServing(pod.url, process);
    checker = await FrameChecker.load(pod.url);
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.close();
    await pod?.process.stop();
    await stack?.stop();
    await redis?.stop();
  });

  it("a socket on one process hears the other process's messages and its own generations' statuses", async () => {
    const alice = await createTestUser(stack, { balance: 5 });
    const created = await call(stack.contentUrl, 'POST', '/api/v1/conversations', alice, { title: 'Chat' });
    const id = created.body.id as string;
    const client = wsClient(pod.url, id, alice.token, checker);
    clients.push(client);
    await client.next((frame) => frame.type === 'ready');

    // Stored by the stack's API process: announced on Redis after its commit.
    const posted = await call(stack.contentUrl, 'POST', `/api/v1/conversations/${id}/messages`, alice, {
      role: 'user',
      content: 'over redis',
    });
    expect(posted.status).toBe(201);
    expect((await client.next((f) => f.type === 'message')).message).toMatchObject({ content: 'over redis' });

    // A generation submitted there and run by the stack's worker: every status reaches the socket.
    const { body } = await submit(stack, alice, 'images', { generator_id: BUILTIN.image, prompt: 'redis' });
    const fileId = body.file_ids[0]!;
    await client.next((f) => f.type === 'generation' && f.file_id === fileId && f.status === 'completed');
    expect(
      client.frames.filter((f) => f.type === 'generation' && f.file_id === fileId).map((f) => f.status),
    ).toEqual(['pending', 'processing', 'completed']);
    expect(checker.violations).toEqual([]);

    // They went through Redis Streams.
    const reader = new Redis(redis.url);
    try {
      expect(await reader.xlen(`muse:bus:conversation:${id}`)).toBeGreaterThan(0);
      expect(await reader.xlen('muse:bus:muse_file_status')).toBeGreaterThan(0);
    } finally {
      reader.disconnect();
    }
  });
});
