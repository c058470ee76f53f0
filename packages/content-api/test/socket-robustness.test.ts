import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '@muse/core';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { createTestUser } from '../../../test/support/content.ts';
import { call } from '../../../test/support/http.ts';
import { startMuseServer, waitUntilServing, type MuseProcess } from '../../../test/support/processes.ts';
import { rawUpgrade } from '../../../test/support/upgrade.ts';
import { FrameChecker, wsClient, type WsClient } from '../../../test/support/sockets.ts';

const CAPS = {
  MUSE_WS_MAX_SOCKETS_PER_ADDRESS: '3',
  MUSE_WS_MAX_PENDING: '2',
  MUSE_WS_ADMISSION_TIMEOUT_MS: '3000',
};

/**
 * Upgrade requests no client should send, and more connections than the caps allow, against a
 * real `muse-server content-api` process: each is answered (a status before the upgrade, or a
 * close code after it), the process stays up and its health endpoint keeps answering.
 */
describe('socket upgrades with bad input', { timeout: 180_000 }, () => {
  let stack: TestStack;
  let server: MuseProcess;
  let url: string;
  let checker: FrameChecker;
  const open: { close(): void }[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
    const port = await freePort();
    server = startMuseServer(['content-api'], {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      MUSE_HOST: '127.0.0.1',
      MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
      MUSE_CONTENT_PORT: String(port),
      ...CAPS,
    });
    url = `http://127.0.0.1:${port}`;
    await waitUntilServing(url, server);
    checker = await FrameChecker.load(url);
  });
  afterEach(() => {
    for (const connection of open.splice(0)) connection.close();
  });
  afterAll(async () => {
    await server?.stop();
    await stack?.stop();
  });

  const stillServing = async () => {
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  };

  /** A socket.io (Engine.IO) connection that joins no namespace: it is held, not yet admitted. */
  const unadmitted = async () => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
    ws.on('error', () => {});
    open.push({ close: () => ws.terminate() });
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
    });
    return { ws, closed };
  };
  const admittedSocket = async (): Promise<WsClient> => {
    const user = await createTestUser(stack);
    const created = await call(stack.contentUrl, 'POST', '/api/v1/conversations', user, { title: 'Held' });
    const client = wsClient(url, created.body.id as string, user.token, checker);
    open.push(client);
    await client.next((frame) => frame.type === 'ready');
    return client;
  };

  it('answers a truncated percent-escape in the conversation id with 404 before the upgrade, and stays up', async () => {
    const answer = await rawUpgrade(url, '/api/v1/conversations/%E0%A4%A/ws');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_found' });
    await stillServing();
    // Again, with a token that is not one: the same answer, the same process.
    expect((await rawUpgrade(url, '/api/v1/conversations/%E0%A4%A/ws?token=x')).status).toBe(404);
    await stillServing();
  });

  it('answers 503 before the upgrade on both transports while the connections not yet admitted are at their cap', async () => {
    const held = [await unadmitted(), await unadmitted()];
    const plain = await rawUpgrade(url, `/api/v1/conversations/${randomUUID()}/ws`);
    expect(plain.status).toBe(503);
    expect(plain.head).toMatch(/\r\nRetry-After: \d+/i);
    expect(JSON.parse(plain.body)).toMatchObject({ code: 'server_busy' });
    const engine = await rawUpgrade(url, '/socket.io/?EIO=4&transport=websocket');
    expect(engine.status).toBe(503);
    const polling = await fetch(`${url}/socket.io/?EIO=4&transport=polling`);
    expect(polling.status).toBe(503);
    expect(await polling.json()).toMatchObject({ code: 'server_busy' });
    await stillServing();
    expect((await fetch(`${url}/readyz`)).status).toBeLessThan(500);
    // Not admitted within MUSE_WS_ADMISSION_TIMEOUT_MS: closed, and their places are free again.
    await Promise.all(held.map((connection) => connection.closed));
    await unadmitted();
  });

  it('answers 429 before the upgrade once an address holds its cap of sockets, admitted or not', async () => {
    await admittedSocket();
    await admittedSocket();
    await unadmitted();
    const plain = await rawUpgrade(url, `/api/v1/conversations/${randomUUID()}/ws`);
    expect(plain.status).toBe(429);
    expect(JSON.parse(plain.body)).toMatchObject({ code: 'too_many_connections' });
    expect((await rawUpgrade(url, '/socket.io/?EIO=4&transport=websocket')).status).toBe(429);
    await stillServing();
  });
});
