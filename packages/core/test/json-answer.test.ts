import http from 'node:http';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createServiceApp, listen, type RunningServer } from '@muse/core';

const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

/** The same handlers on both apps: every way a handler ends its answer with JSON. */
function withRoutes(app: Express): Express {
  app.all('/object', (_req, res) => void res.json({ text: 'héllo ✓', list: [1, 2, 3], nothing: null }));
  app.get(
    '/status/:code',
    (req, res) => void res.status(Number(req.params.code)).json({ code: req.params.code }),
  );
  app.get('/undefined', (_req, res) => void res.json(undefined));
  app.get('/empty-string', (_req, res) => void res.json(''));
  app.get('/own-etag', (_req, res) => void res.set('ETag', '"mine"').json({ a: 1 }));
  app.get('/own-type', (_req, res) => void res.type('application/problem+json').json({ a: 1 }));
  app.get('/sent-object', (_req, res) => void res.send({ sent: true }));
  app.get('/chunked', (_req, res) => void res.set('Transfer-Encoding', 'chunked').json({ a: 1 }));
  return app;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function ask(
  url: string,
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const { date: _date, 'x-request-id': _id, ...rest } = response.headers;
        resolve({
          status: response.statusCode!,
          headers: rest,
          body: Buffer.concat(chunks).toString('latin1'),
        });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

describe("a service app's res.json", () => {
  let ours: RunningServer;
  let stock: RunningServer;
  beforeAll(async () => {
    const service = createServiceApp({ name: 'json-answer-test', logger, openapi: {}, readiness: {} });
    const options = { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 1000 };
    ours = await listen(withRoutes(service), options);
    stock = await listen(withRoutes(express().disable('x-powered-by')), options);
  });
  afterAll(async () => {
    await ours?.close();
    await stock?.close();
  });

  const cases: [string, string, string, Record<string, string>?][] = [
    ['a JSON object with non-ASCII text', 'GET', '/object'],
    ['HEAD', 'HEAD', '/object'],
    ['a POST', 'POST', '/object'],
    ['201', 'GET', '/status/201'],
    ['204', 'GET', '/status/204'],
    ['205', 'GET', '/status/205'],
    ['404', 'GET', '/status/404'],
    ['500', 'GET', '/status/500'],
    ['undefined', 'GET', '/undefined'],
    ['an empty string', 'GET', '/empty-string'],
    ["a handler's own ETag", 'GET', '/own-etag'],
    ["a handler's own content type", 'GET', '/own-type'],
    ['res.send of an object', 'GET', '/sent-object'],
    ['a chunked answer', 'GET', '/chunked'],
    ['a stale If-None-Match', 'GET', '/object', { 'If-None-Match': 'W/"0-x"' }],
    ['If-Modified-Since', 'GET', '/object', { 'If-Modified-Since': new Date().toUTCString() }],
  ];
  it.each(cases)('answers as Express does: %s', async (_name, method, path, headers) => {
    expect(await ask(ours.url, path, method, headers)).toEqual(await ask(stock.url, path, method, headers));
  });

  it('answers 304 to its own ETag on GET and HEAD, and the full answer on no-cache or a POST', async () => {
    const { etag } = (await ask(ours.url, '/object')).headers as { etag: string };
    for (const [method, headers] of [
      ['GET', { 'If-None-Match': etag }],
      ['HEAD', { 'If-None-Match': etag }],
      ['GET', { 'If-None-Match': etag, 'Cache-Control': 'no-cache' }],
      ['POST', { 'If-None-Match': etag }],
    ] as const) {
      const answer = await ask(ours.url, '/object', method, headers);
      expect(answer).toEqual(await ask(stock.url, '/object', method, headers));
      expect(answer.status).toBe(method !== 'POST' && !('Cache-Control' in headers) ? 304 : 200);
    }
  });
});
