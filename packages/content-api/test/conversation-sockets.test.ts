import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { QueryTypes } from 'sequelize';
import { io } from 'socket.io-client';
import { createTokenSigner } from '@muse/content-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { call } from '@muse/test-support/http';
import { balanceOf, BUILTIN, createGenerator, ledgerOf } from '@muse/test-support/generation';
import { startFakeOpenAi } from '@muse/test-support/fakes/openai';
import type { FakeServer } from '@muse/test-support/fakes/server';
import { freePort } from '@muse/core';
import { startMuseServer, waitUntilServing, type MuseProcess } from '@muse/test-support/processes';
import { eventBusFromEnvironment } from '@muse/test-support/redis';
import {
  FrameChecker,
  ioClient,
  ioRefusal,
  wsClient,
  type ChannelClient,
  type Frame,
  type IoClient,
  type WsClient,
} from '@muse/test-support/sockets';

const LIMITS = {
  MUSE_WS_MAX_FRAME_BYTES: '4096',
  MUSE_WS_RATE_LIMIT: '12',
  MUSE_WS_MAX_SOCKETS_PER_USER: '6',
  // Long enough that a busy test process still answers pings in time; the reaping test waits for it.
  MUSE_WS_HEARTBEAT_MS: '5000',
};

function asyncApiMetaSchema() {
  const schema = JSON.parse(
    readFileSync(
      createRequire(import.meta.url).resolve('@asyncapi/specs/schemas/3.0.0-without-$id.json'),
      'utf8',
    ),
  ) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

interface ContentApiProcess {
  url: string;
  process: MuseProcess;
}

/** A `muse-server content-api` process on a free port, once it is ready (Postgres and Temporal reached). */
async function startContentApiProcess(env: Record<string, string>): Promise<ContentApiProcess> {
  const port = await freePort();
  const process = startMuseServer(['content-api'], { ...env, MUSE_CONTENT_PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilServing(url, process);
  await vi.waitUntil(() => fetch(`${url}/readyz`).then((response) => response.ok), {
    timeout: 120_000,
    interval: 200,
  });
  return { url, process };
}

/**
 * The conversation sockets against two real `muse-server content-api` processes sharing one
 * Postgres and Temporal (a worker runs the reply workflows), with plain `ws` and socket.io
 * clients; every frame received is checked against the served AsyncAPI document.
 */
describe('conversation sockets across two content-API processes', () => {
  let stack: TestStack;
  let podA: ContentApiProcess;
  let podB: ContentApiProcess;
  let checker: FrameChecker;
  let openai: FakeServer;
  let admin: TestUser;
  const clients: { close(): void }[] = [];
  // MUSE_EVENT_BUS=redis in the test run: every process here announces through a Redis of its own.
  let bus: Awaited<ReturnType<typeof eventBusFromEnvironment>>;
  const env = () => ({
    ...bus.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: stack.database.url,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    MUSE_HOST: '127.0.0.1',
    MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
    ...LIMITS,
  });

  beforeAll(async () => {
    bus = await eventBusFromEnvironment();
    stack = await startTestStack({ ...LIMITS, ...bus.env });
    await stack.startWorker();
    [podA, podB] = await Promise.all([startContentApiProcess(env()), startContentApiProcess(env())]);
    checker = await FrameChecker.load(podA.url);
    openai = await startFakeOpenAi('sk-fake-key');
    admin = await createTestUser(stack, { admin: true });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    expect(checker.violations).toEqual([]);
  });
  afterAll(async () => {
    await Promise.all([podA?.process.stop(), podB?.process.stop()]);
    await openai?.close();
    await stack?.stop();
    await bus?.stop();
  });

  const ws = (pod: ContentApiProcess, conversationId: string, token: string | undefined): WsClient => {
    const client = wsClient(pod.url, conversationId, token, checker);
    clients.push(client);
    return client;
  };
  const sio = (
    pod: ContentApiProcess,
    conversationId: string,
    token: string | undefined,
    reconnection = false,
  ) => {
    const client = ioClient(pod.url, conversationId, token, checker, { reconnection });
    clients.push(client);
    return client;
  };
  const ready = (client: ChannelClient) => client.next((frame) => frame.type === 'ready');
  const conversation = async (owner: TestUser, body: Record<string, unknown> = {}) => {
    const created = await call(stack.contentUrl, 'POST', '/api/v1/conversations', owner, {
      title: 'Chat',
      ...body,
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const messagesIn = (client: ChannelClient) => client.frames.filter((frame) => frame.type === 'message');
  const storedMessages = (conversationId: string) =>
    stack.database.db.query<{ id: string; content: string; seq: string }>(
      'SELECT id, content, seq FROM content.conversation_messages WHERE conversation_id = :conversationId ORDER BY seq',
      { replacements: { conversationId }, type: QueryTypes.SELECT },
    );

  it('serves its AsyncAPI 3 document and documents the upgrade path; a plain GET answers 426', async () => {
    const document = await call(podB.url, 'GET', '/asyncapi.json');
    expect(document.status).toBe(200);
    expect(document.body.asyncapi).toBe('3.0.0');
    expect(document.body.channels.conversation.address).toBe('/api/v1/conversations/{conversation_id}/ws');
    // Valid against the AsyncAPI 3.0.0 meta-schema (which does reject a document without info).
    const validate = asyncApiMetaSchema();
    expect(validate(document.body), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...document.body, info: undefined })).toBe(false);
    const openapi = await call(podA.url, 'GET', '/openapi.json');
    expect(openapi.body.paths['/api/v1/conversations/{conversation_id}/ws'].get.responses).toHaveProperty(
      '101',
    );
    const plain = await call(podA.url, 'GET', `/api/v1/conversations/${randomUUID()}/ws?token=x`);
    expect(plain.status).toBe(426);
    expect(plain.body.code).toBe('upgrade_required');
    expect((await call(podA.url, 'GET', `/api/v1/conversations/${randomUUID()}/ws`)).status).toBe(422);
  });

  describe('handshake', () => {
    it('refuses a missing, invalid or expired token with 401 before the upgrade (socket.io: connect_error 401)', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const expired = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, -10).sign({
        id: alice.id,
        isActive: true,
        isAdmin: false,
      });
      for (const token of [undefined, 'not-a-token', expired]) {
        const refusal = await ws(podA, id, token).refused;
        expect(refusal).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
        expect(refusal.headers['www-authenticate']).toBe('Bearer');
        const refused = await ioRefusal(sio(podB, id, token));
        expect(refused.data).toEqual({ code: 'unauthorized', status: 401, close_code: 4401 });
      }
    });

    it('refuses a banned account with 403 before the upgrade even with a valid token', async () => {
      const banned = await createTestUser(stack, { active: false });
      const owner = await createTestUser(stack);
      const id = await conversation(owner, { visibility: 'public' });
      expect((await ws(podA, id, banned.token).refused).status).toBe(403);
      expect((await ioRefusal(sio(podB, id, banned.token))).data).toMatchObject({
        status: 403,
        close_code: 4403,
      });
    });

    it("answers 404 before the upgrade alike for a missing conversation and another user's private one", async () => {
      const alice = await createTestUser(stack);
      const bob = await createTestUser(stack);
      const privateOne = await conversation(alice);
      const missing = await ws(podA, randomUUID(), bob.token).refused;
      const hidden = await ws(podA, privateOne, bob.token).refused;
      expect(missing).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(hidden.body).toEqual(missing.body);
      const refusals = await Promise.all([
        ioRefusal(sio(podB, randomUUID(), bob.token)),
        ioRefusal(sio(podB, privateOne, bob.token)),
      ]);
      expect(refusals.map((refusal) => [refusal.message, refusal.data])).toEqual([
        [missing.body.message, { code: 'not_found', status: 404, close_code: 4404 }],
        [missing.body.message, { code: 'not_found', status: 404, close_code: 4404 }],
      ]);
    });

    it('refuses every handshake on the root namespace (401 without a token, 404 with one) and on unknown ones', async () => {
      const alice = await createTestUser(stack);
      const at = (namespace: string, token?: string) => {
        const socket = io(`${podA.url}${namespace}`, {
          auth: token === undefined ? {} : { token },
          transports: ['websocket'],
          reconnection: false,
          forceNew: true,
        });
        clients.push({ close: () => void socket.disconnect() });
        return { socket };
      };
      expect((await ioRefusal(at('/'))).data).toEqual({
        code: 'unauthorized',
        status: 401,
        close_code: 4401,
      });
      expect((await ioRefusal(at('/', 'not-a-token'))).data).toMatchObject({ status: 401 });
      expect((await ioRefusal(at('/', alice.token))).data).toEqual({
        code: 'not_found',
        status: 404,
        close_code: 4404,
      });
      expect((await ioRefusal(at('/admin', alice.token))).message).toBe('Invalid namespace');
    });

    it('caps the sockets of one account on one process (429 before the upgrade)', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const open = Array.from({ length: Number(LIMITS.MUSE_WS_MAX_SOCKETS_PER_USER) }, () =>
        ws(podA, id, alice.token),
      );
      await Promise.all(open.map(ready));
      expect(await ws(podA, id, alice.token).refused).toMatchObject({
        status: 429,
        body: { code: 'too_many_sockets' },
      });
      expect((await ioRefusal(sio(podA, id, alice.token))).data).toMatchObject({
        status: 429,
        close_code: 4429,
      });
      // Another process has its own sockets.
      await ready(ws(podB, id, alice.token));
    });
  });

  describe('messages', () => {
    it('reaches every socket on both processes and both transports, in storage order', async () => {
      const alice = await createTestUser(stack);
      const bob = await createTestUser(stack);
      const id = await conversation(alice, { visibility: 'public' });
      const aliceWsA = ws(podA, id, alice.token);
      const aliceIoB = sio(podB, id, alice.token);
      const bobWsB = ws(podB, id, bob.token);
      const bobIoA = sio(podA, id, bob.token);
      const everyone = [aliceWsA, aliceIoB, bobWsB, bobIoA];
      await Promise.all(everyone.map(ready));

      const posts = Array.from({ length: 6 }, (_, i) => ({
        type: 'post',
        content: `m${i}`,
        client_id: `c${i}`,
      }));
      posts.forEach((post, i) => (i % 2 ? aliceIoB : aliceWsA).send(post));
      const acks = await Promise.all(
        posts.map((post, i) =>
          (i % 2 ? aliceIoB : aliceWsA).next((f) => f.type === 'ack' && f.client_id === post.client_id),
        ),
      );
      expect(new Set(acks.map((ack) => ack.seq))).toEqual(new Set([1, 2, 3, 4, 5, 6]));

      const stored = await storedMessages(id);
      for (const client of everyone) {
        await vi.waitFor(() => expect(messagesIn(client)).toHaveLength(6), { timeout: 20_000 });
        expect(messagesIn(client).map((frame) => frame.message.id)).toEqual(stored.map((row) => row.id));
        expect(messagesIn(client).map((frame) => frame.message.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      }
      // A reader of the public conversation may not write to it: an error frame, and the socket stays.
      bobWsB.send({ type: 'post', content: 'no', client_id: 'b1' });
      expect(await bobWsB.next((f) => f.type === 'error')).toMatchObject({
        code: 'forbidden',
        client_id: 'b1',
      });
      bobWsB.send({ type: 'ping' });
      await bobWsB.next((f) => f.type === 'pong');
    });

    it('relays messages added through the REST API too', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const client = ws(podB, id, alice.token);
      await ready(client);
      const added = await call(podA.url, 'POST', `/api/v1/conversations/${id}/messages`, alice, {
        role: 'system',
        content: 'note',
      });
      expect(added.status).toBe(201);
      expect((await client.next((f) => f.type === 'message')).message).toMatchObject({
        id: added.body.id,
        seq: 1,
        role: 'system',
      });
    });

    it('answers a socket.io frame once: through its acknowledgement when given, else as an event', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const client = sio(podA, id, alice.token);
      await ready(client);
      const acked = await client.request({ type: 'post', content: 'one answer', client_id: 'once-1' });
      expect(acked).toMatchObject({ type: 'ack', client_id: 'once-1', duplicate: false });
      expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong' });
      // Without a callback the answer is an event; it follows any earlier answer on this socket.
      client.send({ type: 'post', content: 'evented', client_id: 'once-2' });
      await client.next((f) => f.type === 'ack' && f.client_id === 'once-2');
      client.send({ type: 'ping' });
      await client.next((f) => f.type === 'pong');
      expect(client.frames.filter((f) => f.type === 'ack').map((f) => f.client_id)).toEqual(['once-2']);
      expect(client.frames.filter((f) => f.type === 'pong')).toHaveLength(1);
    });

    it('stores a repeated client_id once, on either transport and either process', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const first = ws(podA, id, alice.token);
      const second = sio(podB, id, alice.token);
      await Promise.all([ready(first), ready(second)]);
      first.send({ type: 'post', content: 'once', client_id: 'same' });
      const ack = await first.next((f) => f.type === 'ack');
      expect(ack.duplicate).toBe(false);
      const again = await second.request({ type: 'post', content: 'once', client_id: 'same' });
      expect(again).toEqual({ ...ack, duplicate: true });
      first.send({ type: 'post', content: 'once', client_id: 'same' });
      await vi.waitFor(() => expect(first.frames.filter((f) => f.type === 'ack')).toHaveLength(2));
      expect((await storedMessages(id)).length).toBe(1);
      second.send({ type: 'ping' });
      await second.next((f) => f.type === 'pong');
      expect(messagesIn(second)).toHaveLength(1);
      const repeatedRest = await call(podA.url, 'POST', `/api/v1/conversations/${id}/messages`, alice, {
        role: 'user',
        content: 'once',
        client_id: 'same',
      });
      expect(repeatedRest).toMatchObject({ status: 200, body: { id: ack.message_id } });
    });

    it('replays what a dropped connection missed on resume, then continues live', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const writer = sio(podB, id, alice.token);
      const reader = ws(podA, id, alice.token);
      await Promise.all([ready(writer), ready(reader)]);
      const first = await writer.request({ type: 'post', content: 'one', client_id: 'r1' });
      await reader.next((f) => f.type === 'message');
      reader.close();
      for (const n of [2, 3, 4]) await writer.request({ type: 'post', content: `n${n}`, client_id: `r${n}` });

      const back = ws(podA, id, alice.token);
      expect((await ready(back)).last_seq).toBe(4);
      back.send({ type: 'resume', after: first.message_id });
      writer.send({ type: 'post', content: 'live', client_id: 'r5' });
      const resumed = await back.next((f) => f.type === 'resumed');
      // 'live' was stored after `ready`: it comes live, before or after the replay, never twice.
      expect(resumed.count).toBe(3);
      await vi.waitFor(() => expect(messagesIn(back)).toHaveLength(4));
      const bySeq = messagesIn(back).sort((a, b) => a.message.seq - b.message.seq);
      expect(bySeq.map((f) => f.message.content)).toEqual(['n2', 'n3', 'n4', 'live']);
      // Resuming again from the start repeats nothing this socket has already been sent.
      back.send({ type: 'resume', after: first.message_id });
      expect(await back.next((f) => f.type === 'resumed', back.frames.length)).toMatchObject({ count: 0 });
      expect(messagesIn(back)).toHaveLength(4);

      back.send({ type: 'resume', after: randomUUID() });
      expect(await back.next((f) => f.type === 'error')).toMatchObject({ code: 'not_found' });
    });

    it('answers an invalid frame with invalid_frame and keeps the socket', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const client = ws(podA, id, alice.token);
      await ready(client);
      client.ws.send('not json');
      client.send({ type: 'post', content: '' });
      client.send({ type: 'shout' });
      await vi.waitFor(() => expect(client.frames.filter((f) => f.code === 'invalid_frame')).toHaveLength(3));
      client.send({ type: 'ping' });
      await client.next((f) => f.type === 'pong');
    });
  });

  describe('authentication on an open socket', () => {
    it('keeps the socket open when the token expires: token_expired until a fresh token comes with auth', async () => {
      const alice = await createTestUser(stack);
      const bob = await createTestUser(stack);
      const id = await conversation(alice);
      const shortLived = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, 2).sign({
        id: alice.id,
        isActive: true,
        isAdmin: false,
      });
      const expiry =
        (JSON.parse(Buffer.from(shortLived.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp *
        1000;
      const plain = ws(podA, id, shortLived);
      const socketIo = sio(podB, id, shortLived);
      await Promise.all([ready(plain), ready(socketIo)]);
      await vi.waitUntil(() => Date.now() >= expiry + 50, { timeout: 10_000, interval: 50 });

      plain.send({ type: 'post', content: 'late', client_id: 'x1' });
      expect(await plain.next((f) => f.type === 'error')).toMatchObject({
        code: 'token_expired',
        client_id: 'x1',
      });
      expect(await socketIo.request({ type: 'post', content: 'late', client_id: 'x2' })).toMatchObject({
        code: 'token_expired',
      });
      expect(await storedMessages(id)).toEqual([]);
      expect(plain.ws.readyState).toBe(plain.ws.OPEN);

      plain.send({ type: 'auth', token: bob.token });
      expect(await plain.next((f) => f.type === 'error' && f.code === 'unauthorized')).toBeTruthy();
      plain.send({ type: 'post', content: 'still late', client_id: 'x3' });
      await vi.waitFor(() => expect(plain.frames.filter((f) => f.code === 'token_expired')).toHaveLength(2));

      plain.send({ type: 'auth', token: alice.token });
      expect(await plain.next((f) => f.type === 'authenticated')).toEqual({
        type: 'authenticated',
        user_id: alice.id,
      });
      plain.send({ type: 'post', content: 'fresh', client_id: 'x4' });
      await plain.next((f) => f.type === 'ack' && f.client_id === 'x4');
      expect(await socketIo.request({ type: 'auth', token: alice.token })).toMatchObject({
        type: 'authenticated',
      });
      expect(await socketIo.request({ type: 'post', content: 'fresh too', client_id: 'x5' })).toMatchObject({
        type: 'ack',
      });
    });

    it('closes the sockets of an account banned while they are open on every process at once (4403), silent ones too', async () => {
      const alice = await createTestUser(stack);
      const bob = await createTestUser(stack);
      const own = await conversation(bob);
      const watched = await conversation(alice, { visibility: 'public' });
      const plain = ws(podA, own, bob.token);
      const socketIo = sio(podB, watched, bob.token);
      const watcher = ws(podB, watched, alice.token);
      await Promise.all([ready(plain), ready(socketIo), ready(watcher)]);
      const disconnected = new Promise((resolve) => socketIo.socket.once('disconnect', resolve));
      const banned = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${bob.id}`, admin, {
        is_active: false,
      });
      expect(banned.status).toBe(200);
      // Bob sends nothing: the ban alone closes both sockets.
      expect(await plain.closed).toMatchObject({ code: 4403 });
      expect(await disconnected).toBe('io server disconnect');
      expect(socketIo.frames.at(-1)).toMatchObject({ type: 'error', code: 'forbidden' });
      const after = await call(stack.contentUrl, 'POST', `/api/v1/conversations/${watched}/messages`, alice, {
        role: 'user',
        content: 'after the ban',
      });
      expect(after.status).toBe(201);
      await watcher.next((f) => f.type === 'message' && f.message.id === after.body.id);
      expect(messagesIn(socketIo)).toEqual([]);
    });

    it('withholds deliveries from a silent socket whose token expired, and replays them after auth', async () => {
      const alice = await createTestUser(stack);
      const bob = await createTestUser(stack);
      const id = await conversation(alice, { visibility: 'public' });
      const shortLived = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, 2).sign({
        id: bob.id,
        isActive: true,
        isAdmin: false,
      });
      const plain = ws(podB, id, shortLived);
      const socketIo = sio(podA, id, shortLived);
      await Promise.all([ready(plain), ready(socketIo)]);
      const expiry =
        (JSON.parse(Buffer.from(shortLived.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp *
        1000;
      await vi.waitUntil(() => Date.now() >= expiry + 50, { timeout: 10_000, interval: 50 });
      const post = async (content: string) => {
        const added = await call(stack.contentUrl, 'POST', `/api/v1/conversations/${id}/messages`, alice, {
          role: 'user',
          content,
        });
        expect(added.status).toBe(201);
        return added.body.id as string;
      };
      const missed = [await post('while expired 1'), await post('while expired 2')];
      // The first withheld delivery tells the client, once; the messages themselves are not sent.
      for (const client of [plain, socketIo]) {
        await client.next((f) => f.type === 'error' && f.code === 'token_expired');
        expect(messagesIn(client)).toEqual([]);
      }
      expect(plain.ws.readyState).toBe(plain.ws.OPEN);

      plain.send({ type: 'auth', token: bob.token });
      await plain.next((f) => f.type === 'authenticated');
      expect(messagesIn(plain).map((f) => f.message.id)).toEqual(missed);
      expect(await socketIo.request({ type: 'auth', token: bob.token })).toMatchObject({
        type: 'authenticated',
      });
      expect(messagesIn(socketIo).map((f) => f.message.id)).toEqual(missed);
      const live = await post('after auth');
      for (const client of [plain, socketIo]) {
        await client.next((f) => f.type === 'message' && f.message.id === live);
        expect(messagesIn(client)).toHaveLength(3);
        expect(client.frames.filter((f) => f.code === 'token_expired')).toHaveLength(1);
      }
    });
  });

  describe('delivery follows access', () => {
    /** Bob watches Alice's public conversation on both processes and both transports, silently. */
    const watching = async () => {
      const alice = await createTestUser(stack);
      const bob = await createTestUser(stack);
      const id = await conversation(alice, { visibility: 'public' });
      const owner = ws(podA, id, alice.token);
      const plain = ws(podB, id, bob.token);
      const socketIo = sio(podA, id, bob.token);
      await Promise.all([ready(owner), ready(plain), ready(socketIo)]);
      const disconnected = new Promise((resolve) => socketIo.socket.once('disconnect', resolve));
      return { alice, id, owner, plain, socketIo, disconnected };
    };

    it('closes the sockets of readers on every process with 4404 when the conversation is made private, before the next message', async () => {
      const { alice, id, owner, plain, socketIo, disconnected } = await watching();
      const hidden = await call(stack.contentUrl, 'PATCH', `/api/v1/conversations/${id}`, alice, {
        visibility: 'private',
      });
      expect(hidden.status).toBe(200);
      const next = await call(stack.contentUrl, 'POST', `/api/v1/conversations/${id}/messages`, alice, {
        role: 'user',
        content: 'private now',
      });
      expect(next.status).toBe(201);
      expect(await plain.closed).toMatchObject({ code: 4404 });
      expect(await disconnected).toBe('io server disconnect');
      expect(socketIo.frames.at(-1)).toMatchObject({ type: 'error', code: 'not_found' });
      expect(messagesIn(plain)).toEqual([]);
      expect(messagesIn(socketIo)).toEqual([]);
      // The owner may still read it: its socket stays and gets the message.
      await owner.next((f) => f.type === 'message' && f.message.id === next.body.id);
    });

    it('closes every socket on it with 4404 when the conversation is deleted', async () => {
      const { alice, id, owner, plain, disconnected } = await watching();
      const deleted = await call(stack.contentUrl, 'DELETE', `/api/v1/conversations/${id}`, alice);
      expect(deleted.status).toBe(204);
      expect(await plain.closed).toMatchObject({ code: 4404 });
      expect(await owner.closed).toMatchObject({ code: 4404 });
      expect(await disconnected).toBe('io server disconnect');
    });

    it("closes a deleted account's sockets with 4401 and every other socket on its conversations with 4404", async () => {
      const { alice, owner, plain, disconnected } = await watching();
      const deleted = await call(stack.contentUrl, 'DELETE', `/api/v1/users/${alice.id}`, admin);
      expect(deleted.status).toBe(204);
      expect(await owner.closed).toMatchObject({ code: 4401 });
      expect(await plain.closed).toMatchObject({ code: 4404 });
      expect(await disconnected).toBe('io server disconnect');
    });

    it('closes the sockets of an account that lost the read permission with 4403', async () => {
      const { alice, id, plain, socketIo, disconnected } = await watching();
      const bobId = (plain.frames[0] as Frame).user_id as string;
      const revoked = await call(stack.contentUrl, 'PATCH', `/api/v1/users/${bobId}/permission`, admin, {
        revoke: ['conversation:read:public'],
      });
      expect(revoked.status).toBe(200);
      expect(await plain.closed).toMatchObject({ code: 4403 });
      expect(await disconnected).toBe('io server disconnect');
      const next = await call(stack.contentUrl, 'POST', `/api/v1/conversations/${id}/messages`, alice, {
        role: 'user',
        content: 'not for bob',
      });
      expect(next.status).toBe(201);
      expect(messagesIn(socketIo)).toEqual([]);
    });
  });

  describe('limits', () => {
    it('closes a socket whose frame is larger than the maximum with 1009', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      const plain = ws(podA, id, alice.token);
      await ready(plain);
      plain.send({ type: 'post', content: 'x'.repeat(5000), client_id: 'big' });
      expect((await plain.closed).code).toBe(1009);
      // socket.io drops the connection (it has no close codes).
      const socketIo = sio(podB, id, alice.token);
      await ready(socketIo);
      const dropped = new Promise((resolve) => socketIo.socket.once('disconnect', resolve));
      socketIo.send({ type: 'post', content: 'x'.repeat(5000), client_id: 'big' });
      expect(await dropped).toBe('transport close');
      expect(await storedMessages(id)).toEqual([]);
    });

    it('answers frames above the per-socket rate with rate_limited', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      for (const client of [ws(podA, id, alice.token), sio(podB, id, alice.token)]) {
        await ready(client);
        const limit = Number(LIMITS.MUSE_WS_RATE_LIMIT);
        for (let i = 0; i < limit + 3; i++) client.send({ type: 'ping' });
        await vi.waitFor(() =>
          expect(client.frames.filter((f) => f.code === 'rate_limited')).toHaveLength(3),
        );
        expect(client.frames.filter((f) => f.type === 'pong')).toHaveLength(limit);
        expect(client.frames.find((f) => f.code === 'rate_limited')!.retry_after_ms).toBeGreaterThan(0);
      }
    });

    it('drops a connection that stops answering pings', async () => {
      const alice = await createTestUser(stack);
      const id = await conversation(alice);
      // A raw TCP client: it completes the handshake, then never answers the server's pings.
      const { port } = new URL(podA.url);
      const socket = net.connect(Number(port), '127.0.0.1');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.write(
        [
          `GET /api/v1/conversations/${id}/ws?token=${alice.token} HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Version: 13',
          '',
          '',
        ].join('\r\n'),
      );
      await closed;
      expect(received).toContain('101 Switching Protocols');
      expect(received).toContain('"type":"ready"');
    });
  });

  describe('character replies', () => {
    const characterWith = async (owner: TestUser, generatorId: string) => {
      const created = await call(stack.contentUrl, 'POST', '/api/v1/characters', owner, {
        name: 'Echo',
        persona: 'You repeat what you hear.',
        generator_id: generatorId,
      });
      expect(created.status).toBe(201);
      return created.body.id as string;
    };
    const openaiGenerator = (config: Record<string, unknown> = {}) =>
      createGenerator(stack, admin, {
        kind: 'text',
        type: 'openai',
        base_cost: 3,
        config: { base_url: openai.url, model: 'gpt-fake', ...config },
        secrets: { api_key: 'sk-fake-key' },
      });
    const replyOutcome = (messageId: string) =>
      stack.temporal.workflow.getHandle(`reply-${messageId}`).result();

    it('streams the reply of a character from an OpenAI-compatible upstream as delta frames, then stores it', async () => {
      const alice = await createTestUser(stack, { balance: 10 });
      const id = await conversation(alice, {
        character_id: await characterWith(alice, await openaiGenerator()),
      });
      const sender = ws(podA, id, alice.token);
      const watcher = sio(podB, id, alice.token);
      await Promise.all([ready(sender), ready(watcher)]);
      sender.send({ type: 'post', content: 'hello there friend', client_id: 'q1' });
      const ack = await sender.next((f) => f.type === 'ack');

      for (const client of [sender, watcher] as ChannelClient[]) {
        const reply = await client.next((f) => f.type === 'message' && f.message.role === 'assistant');
        expect(reply.message).toMatchObject({
          content: 'Echo: hello there friend',
          reply_to_id: ack.message_id,
          author_id: null,
        });
        const deltas = client.frames.filter(
          (f): f is Frame => f.type === 'delta' && f.reply_to_id === ack.message_id,
        );
        expect(deltas.length).toBeGreaterThan(2);
        expect(deltas.map((f) => f.index)).toEqual(deltas.map((_, i) => i));
        expect(deltas.map((f) => f.text).join('')).toBe(reply.message.content);
        // Every chunk came before the stored reply.
        expect(client.frames.indexOf(deltas.at(-1)!)).toBeLessThan(client.frames.indexOf(reply));
      }
      expect(await replyOutcome(ack.message_id)).toEqual({ status: 'answered' });
      const upstreamCall = openai.requests.find(
        (r) => r.path === '/v1/chat/completions' && r.body.includes('hello there friend'),
      )!;
      expect(upstreamCall.headers.authorization).toBe('Bearer sk-fake-key');
      expect(JSON.parse(upstreamCall.body)).toMatchObject({
        stream: true,
        messages: [
          { role: 'system', content: 'You repeat what you hear.' },
          { role: 'user', content: 'hello there friend' },
        ],
      });
      expect(await balanceOf(stack, alice.id)).toBe(7);
      expect((await ledgerOf(stack, alice.id)).map((entry) => [entry.kind, entry.amount])).toEqual([
        ['charge', -3],
      ]);
    });

    it('streams the built-in offline generator too', async () => {
      const alice = await createTestUser(stack, { balance: 5 });
      const id = await conversation(alice, { character_id: await characterWith(alice, BUILTIN.text) });
      const client = sio(podB, id, alice.token);
      await ready(client);
      const ack = await client.request({ type: 'post', content: 'tell me a story', client_id: 'q1' });
      const reply = await client.next((f) => f.type === 'message' && f.message.role === 'assistant');
      const deltas = client.frames.filter((f) => f.type === 'delta' && f.reply_to_id === ack.message_id);
      expect(deltas.length).toBeGreaterThan(5);
      expect(deltas.map((f) => f.text).join('')).toBe(reply.message.content);
      expect(await balanceOf(stack, alice.id)).toBe(4);
    });

    it('refunds a failed reply exactly once and sends an error frame', async () => {
      const alice = await createTestUser(stack, { balance: 10 });
      const generator = await openaiGenerator({ max_attempts: 2 });
      openai.script('fail', 'fail');
      const id = await conversation(alice, { character_id: await characterWith(alice, generator) });
      const sender = ws(podA, id, alice.token);
      const watcher = ws(podB, id, alice.token);
      await Promise.all([ready(sender), ready(watcher)]);
      sender.send({ type: 'post', content: 'anyone?', client_id: 'q1' });
      const ack = await sender.next((f) => f.type === 'ack');
      for (const client of [sender, watcher]) {
        expect(await client.next((f) => f.type === 'error')).toMatchObject({
          code: 'reply_failed',
          reply_to_id: ack.message_id,
        });
      }
      expect(await replyOutcome(ack.message_id)).toMatchObject({ status: 'failed' });
      expect(openai.requests.filter((r) => r.body.includes('anyone?'))).toHaveLength(2);
      expect((await ledgerOf(stack, alice.id)).map((entry) => [entry.kind, entry.amount])).toEqual([
        ['charge', -3],
        ['refund', 3],
      ]);
      expect(await balanceOf(stack, alice.id)).toBe(10);
      // Running the compensation again (a retried activity) neither refunds nor announces twice.
      const { refundReply } = await import('@muse/content-api/workflow-steps');
      await refundReply(stack.database.db, ack.message_id, 'again');
      expect((await ledgerOf(stack, alice.id)).length).toBe(2);
      sender.send({ type: 'ping' });
      await sender.next((f) => f.type === 'pong');
      expect(sender.frames.filter((f) => f.type === 'error')).toHaveLength(1);
      expect((await storedMessages(id)).length).toBe(1);
    });

    it('answers insufficient_balance and charges nothing when the author cannot pay', async () => {
      const alice = await createTestUser(stack, { balance: 2 });
      const id = await conversation(alice, {
        character_id: await characterWith(alice, await openaiGenerator()),
      });
      const client = ws(podB, id, alice.token);
      await ready(client);
      client.send({ type: 'post', content: 'free ride?', client_id: 'q1' });
      const ack = await client.next((f) => f.type === 'ack');
      expect(await client.next((f) => f.type === 'error')).toMatchObject({
        code: 'insufficient_balance',
        reply_to_id: ack.message_id,
      });
      expect(await replyOutcome(ack.message_id)).toEqual({ status: 'insufficient_balance' });
      expect(await ledgerOf(stack, alice.id)).toEqual([]);
      expect(await balanceOf(stack, alice.id)).toBe(2);
    });

    it('refuses to bind a character to a generator that cannot stream replies', async () => {
      const alice = await createTestUser(stack);
      const unknown = await call(stack.contentUrl, 'POST', '/api/v1/characters', alice, {
        name: 'x',
        generator_id: randomUUID(),
      });
      expect(unknown.status).toBe(404);
      const image = await call(stack.contentUrl, 'POST', '/api/v1/characters', alice, {
        name: 'x',
        generator_id: BUILTIN.image,
      });
      expect(image.status).toBe(422);
    });
  });

  it("sends the caller's generation status events", async () => {
    const alice = await createTestUser(stack, { balance: 5 });
    const id = await conversation(alice);
    const client = ws(podB, id, alice.token);
    await ready(client);
    const submitted = await call(podA.url, 'POST', '/api/v1/generations/images', alice, {
      generator_id: BUILTIN.image,
      prompt: 'a fox',
      count: 1,
    });
    expect(submitted.status).toBe(202);
    const fileId = submitted.body.file_ids[0];
    await client.next((f) => f.type === 'generation' && f.file_id === fileId && f.status === 'completed');
    expect(client.frames.filter((f) => f.type === 'generation').map((f) => f.status)).toEqual([
      'pending',
      'processing',
      'completed',
    ]);
  });

  it('answers reply_unavailable, charging nothing, when the reply workflow cannot be started', async () => {
    const alice = await createTestUser(stack, { balance: 5 });
    const character = await call(stack.contentUrl, 'POST', '/api/v1/characters', alice, {
      name: 'Mute',
      generator_id: BUILTIN.text,
    });
    const id = await conversation(alice, { character_id: character.body.id });
    // A process whose Temporal is unreachable: it serves, but cannot start workflows (each start
    // gives up after 1 s; 10 s by default).
    const port = await freePort();
    const cutOff = startMuseServer(['content-api'], {
      ...env(),
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      MUSE_TEMPORAL_CALL_TIMEOUT_MS: '1000',
      MUSE_CONTENT_PORT: String(port),
    });
    try {
      await waitUntilServing(`http://127.0.0.1:${port}`, cutOff);
      const client = ws({ url: `http://127.0.0.1:${port}`, process: cutOff }, id, alice.token);
      await ready(client);
      client.send({ type: 'post', content: 'hello?', client_id: 'u1' });
      const ack = await client.next((f) => f.type === 'ack');
      expect(await client.next((f) => f.type === 'error')).toMatchObject({
        code: 'reply_unavailable',
        reply_to_id: ack.message_id,
      });
      expect(await ledgerOf(stack, alice.id)).toEqual([]);
      expect((await storedMessages(id)).length).toBe(1);
    } finally {
      await cutOff.stop();
    }
  });

  it('closes its sockets with 1001 on SIGTERM so clients reconnect elsewhere', async () => {
    const alice = await createTestUser(stack);
    const id = await conversation(alice);
    const podC = await startContentApiProcess(env());
    const plain = ws(podC, id, alice.token);
    const socketIo: IoClient = sio(podC, id, alice.token);
    await Promise.all([ready(plain), ready(socketIo)]);
    const dropped = new Promise((resolve) => socketIo.socket.once('disconnect', resolve));
    await podC.process.stop();
    expect(await plain.closed).toEqual({ code: 1001, reason: 'The server is shutting down; reconnect' });
    expect(await dropped).toBe('transport close');
  });
});
