import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, listen, type RunningServer } from '@muse/core';
import { createContentApp } from '@muse/content-api';
import { createChatApp } from '@muse/chat-api';
import { startTestStack, type TestStack } from './support/stack.ts';

type LogLine = { msg: string; requestId?: string; err?: unknown; status?: number };

/** A logger whose JSON lines are kept for the test to read. */
function capturingLogger() {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('X-Request-Id on both APIs', () => {
  let stack: TestStack;
  const servers: RunningServer[] = [];
  const logs = capturingLogger();
  // A database without the platform's schemas (42P01 on every query): not an outage (those answer
  // 503) but an error no handler expects, so requests that reach the database fail with a 500.
  let deadDb: ReturnType<typeof createDatabase>;
  const urls: Record<string, { healthy: string; broken: string }> = {};

  beforeAll(async () => {
    stack = await startTestStack();
    const missing = new URL(stack.database.url);
    missing.pathname = '/postgres';
    deadDb = createDatabase(missing.toString());
    const base = {
      config: stack.config,
      temporal: stack.temporal,
      bus: stack.bus,
      logger: logs.logger,
    };
    const serve = async (app: Parameters<typeof listen>[0]) => {
      const server = await listen(app, {
        host: '127.0.0.1',
        port: 0,
        logger: logs.logger,
        shutdownTimeoutMs: 1000,
      });
      servers.push(server);
      return server.url;
    };
    urls.content = {
      healthy: await serve(createContentApp({ ...base, db: stack.database.db })),
      broken: await serve(createContentApp({ ...base, db: deadDb })),
    };
    urls.chat = {
      healthy: await serve(createChatApp({ ...base, db: stack.database.db })),
      broken: await serve(createChatApp({ ...base, db: deadDb })),
    };
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await deadDb.close();
    await stack.stop();
  });

  /** A request that reaches the database: the chat API authenticates, the content API counts code requests. */
  const databaseRequest = {
    content: { path: '/api/v1/auth/verification-code?phone_number=13800138000', headers: {} },
    chat: {
      path: '/api/v1/users',
      headers: {
        authorization: `Basic ${Buffer.from(`a@example.com:${'k'.repeat(32)}`).toString('base64')}`,
      },
    },
  };

  for (const api of ['content', 'chat'] as const) {
    it(`${api}: a well-formed caller id is echoed and names the request's log line`, async () => {
      const id = `req-${api}-${Date.now()}.a:b_c`;
      const response = await fetch(`${urls[api]!.healthy}/healthz`, { headers: { 'X-Request-Id': id } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe(id);
      await expect
        .poll(() => logs.lines.filter((line) => line.requestId === id).map((l) => l.msg))
        .toEqual(['request completed']);
    });

    it(`${api}: a missing or malformed id is replaced by a generated UUID`, async () => {
      const missing = await fetch(`${urls[api]!.healthy}/healthz`);
      expect(missing.headers.get('x-request-id')).toMatch(UUID);
      for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '<b>']) {
        const response = await fetch(`${urls[api]!.healthy}/healthz`, { headers: { 'X-Request-Id': bad } });
        expect(response.headers.get('x-request-id'), bad).toMatch(UUID);
      }
      const one = await fetch(`${urls[api]!.healthy}/healthz`);
      const two = await fetch(`${urls[api]!.healthy}/healthz`);
      expect(one.headers.get('x-request-id')).not.toBe(two.headers.get('x-request-id'));
    });

    it(`${api}: an unhandled error is a 500 whose error log lines carry the request id`, async () => {
      const { path, headers } = databaseRequest[api];
      const id = `broken-${api}-${Date.now()}`;
      const response = await fetch(`${urls[api]!.broken}${path}`, {
        headers: { ...headers, 'X-Request-Id': id },
      });
      expect(response.status).toBe(500);
      expect(response.headers.get('x-request-id')).toBe(id);
      await expect
        .poll(() =>
          logs.lines
            .filter((line) => line.requestId === id)
            .map((line) => [line.msg, line.err !== undefined || line.status === 500]),
        )
        .toEqual([
          [expect.stringMatching(/^unhandled error/), true],
          ['request failed', true],
        ]);
    });

    it(`${api}: the served document names the header on every answer`, async () => {
      const document = (await (await fetch(`${urls[api]!.healthy}/openapi.json`)).json()) as {
        paths: Record<
          string,
          Record<string, { responses: Record<string, { headers?: object; $ref?: string }> }>
        >;
        components: { headers: Record<string, unknown>; responses?: Record<string, { headers?: object }> };
      };
      expect(document.components.headers.RequestId).toBeDefined();
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          if (typeof operation !== 'object' || !('responses' in operation)) continue;
          for (const [status, response] of Object.entries(operation.responses)) {
            const resolved = response.$ref
              ? document.components.responses?.[response.$ref.split('/').at(-1)!]
              : response;
            expect(resolved?.headers, `${method} ${path} ${status}`).toHaveProperty('X-Request-Id');
          }
        }
      }
    });
  }
});
