import { IncomingMessage, type ServerResponse } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createLogger, listen } from '@muse/core';

const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

describe('listen().close() — graceful shutdown', () => {
  it('lets an in-flight request finish, then refuses new connections', async () => {
    let started!: () => void;
    const requestStarted = new Promise<void>((resolve) => (started = resolve));
    const server = await listen(
      (_req, res) => {
        started();
        setTimeout(() => res.end('done'), 300);
      },
      { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 5000 },
    );
    const inFlight = fetch(server.url).then((r) => r.text());
    await requestStarted;
    const closed = server.close();
    expect(await inFlight).toBe('done');
    await closed;
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it('cuts a request that outlives the shutdown timeout', async () => {
    const server = await listen(() => {}, { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 100 });
    const hanging = fetch(server.url);
    await new Promise((r) => setTimeout(r, 50));
    await server.close();
    await expect(hanging).rejects.toThrow();
  });
});

describe('listen() of an Express app', () => {
  it("makes each request and response with the app's prototypes, which Express then leaves as they are", async () => {
    const app = express();
    app.get('/', (req, res) => void res.json({ prototypes: Object.getPrototypeOf(req) === app.request }));
    const server = await listen(app, { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 1000 });
    const born: boolean[] = [];
    // Before Express sees them: a listener ahead of the app's.
    server.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) =>
      born.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response),
    );
    try {
      const answer = await fetch(server.url);
      expect(await answer.json()).toEqual({ prototypes: true });
      expect(born).toEqual([true]);
    } finally {
      await server.close();
    }
  });

  it("keeps Node's own classes for a plain handler", async () => {
    let prototype: object | null = null;
    const server = await listen(
      (req, res) => {
        prototype = Object.getPrototypeOf(req) as object;
        res.end();
      },
      { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 1000 },
    );
    try {
      await (await fetch(server.url)).text();
      expect(prototype).toBe(IncomingMessage.prototype);
    } finally {
      await server.close();
    }
  });
});
