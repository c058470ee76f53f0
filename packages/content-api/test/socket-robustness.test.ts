import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import fc from 'fast-check';
import WebSocket from 'ws';
import { freePort } from '@muse/core';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';
import { startMuseServer, waitUntilServing, type MuseProcess } from '@muse/test-support/processes';
import { rawUpgrade } from '@muse/test-support/upgrade';
import { FrameChecker, wsClient, type WsClient } from '@muse/test-support/sockets';

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

  it('answers every malformed upgrade to every socket path with a 4xx, and stays up (fuzz)', async () => {
    const conversation = '/api/v1/conversations';
    const fixed = [
      `${conversation}/%E0%A4%A/ws`,
      `${conversation}/%/ws`,
      `${conversation}/%ZZ/ws`,
      `${conversation}/%00/ws`,
      `${conversation}/%C0%AF/ws`,
      `${conversation}/..%2F..%2Fetc/ws`,
      `${conversation}//ws`,
      `${conversation}/${randomUUID()}/ws?token=%E0%A4%A`,
      `${conversation}/${randomUUID()}/ws?token=a&token=b`,
      `${conversation}/${'a'.repeat(8000)}/ws`,
      `${conversation}/${'%41'.repeat(3000)}/ws`,
      '/%E0%A4%A',
      '/',
      '/socket.io/%E0%A4%A',
      '/socket.io/?EIO=99&transport=websocket',
      '/socket.io/?EIO=4&transport=carrier-pigeon',
      '/socket.io/?EIO=4&transport=websocket&sid=%E0%A4%A',
      '/socket.io/?EIO=4&transport=websocket&sid=unknown',
    ];
    for (const path of fixed) {
      const answer = await rawUpgrade(url, path);
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.status, path).toBeLessThan(500);
    }
    // Bad handshake headers on a well-formed path.
    const path = `${conversation}/${randomUUID()}/ws?token=x`;
    const badHeaders: Record<string, string>[] = [
      { Connection: 'Upgrade', Upgrade: 'websocket' },
      {
        Connection: 'Upgrade',
        Upgrade: 'carrier-pigeon',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'x',
      },
      {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '99',
        'Sec-WebSocket-Key': 'x',
      },
      { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': '' },
    ];
    for (const headers of badHeaders) {
      const answer = await rawUpgrade(url, path, headers);
      expect(answer.status, JSON.stringify(headers)).toBeGreaterThanOrEqual(400);
      expect(answer.status, JSON.stringify(headers)).toBeLessThan(500);
    }
    // Generated conversation ids: any characters, percent-escapes complete or not.
    const segment = fc
      .array(
        fc.oneof(fc.constantFrom('%', '%E0', '%A4%A', '%2F', '%25', '%00', '/'), fc.string({ maxLength: 4 })),
        {
          minLength: 1,
          maxLength: 8,
        },
      )
      .map((parts) => parts.join('').replace(/[\s#?]/g, '%20'));
    await fc.assert(
      fc.asyncProperty(segment, async (id) => {
        const answer = await rawUpgrade(url, `${conversation}/${id}/ws`);
        return answer.status >= 400 && answer.status < 500;
      }),
      { numRuns: 60, seed: 21 },
    );
    await stillServing();
  });

  it('answers socket.io handshakes to unknown namespaces with connect errors, and stays up', async () => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
    open.push({ close: () => ws.terminate() });
    const packets: string[] = [];
    ws.on('message', (data) => packets.push(data.toString()));
    await new Promise((resolve) => ws.once('open', resolve));
    for (const namespace of [
      '/nope',
      '/conversations',
      '/conversations/a/b',
      '/%E0%A4%A',
      `/${'x'.repeat(5000)}`,
    ]) {
      ws.send(`40${namespace},{"token":"x"}`);
    }
    // Engine.IO open (0…), then one CONNECT_ERROR (44…) per namespace handshake.
    await vi.waitFor(() => expect(packets.filter((packet) => packet.startsWith('44'))).toHaveLength(5), {
      timeout: 30_000,
    });
    ws.send('40/%E0%A4%A,not json');
    ws.send('4');
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
