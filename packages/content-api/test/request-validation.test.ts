import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@muse/core';
import { contentOpenApiDocument } from '../src/openapi.ts';
import { errorHandler } from '../src/http/errors.ts';
import { createOperationResolver, operationPerRequest } from '../src/http/operation.ts';
import { validateRequests } from '../src/http/request-validation.ts';

/**
 * The request validation the content API runs (`validateRequests`: the operation the resolver
 * found, or else looked up in a table, the library's request validator run only where the
 * operation takes input) answers every
 * request exactly as express-openapi-validator's own middleware does on the same document: the
 * same status, body and `Allow` header, and the same path parameters handed on. Both are served
 * over real HTTP and asked the same requests, made from every documented path and method with
 * good and bad path values, letter case, trailing slashes, unknown or invalid query parameters,
 * bodies, and paths and methods the document does not have.
 */
describe('request validation answers as express-openapi-validator does', () => {
  const document = contentOpenApiDocument();
  const servers: Server[] = [];
  let ours: string;
  let library: string;

  const serve = async (validation: express.RequestHandler | express.RequestHandler[]): Promise<string> => {
    const app: Express = express();
    app.use(express.json());
    app.use(validation);
    app.use((req, res) => {
      res.json({ params: req.params, query: req.query, body: req.body ?? null });
    });
    app.use(errorHandler(createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' })));
    const server = app.listen(0, '127.0.0.1');
    // fetch reuses connections; on a busy machine one may outlive Node's 5 s idle default and be reset.
    server.keepAliveTimeout = 120_000;
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    const options = { apiSpec: document, validateRequests: { allowUnknownQueryParameters: false } };
    ours = await serve(validateRequests(options, operationPerRequest(createOperationResolver(document))));
    library = await serve(
      OpenApiValidator.middleware({
        ...options,
        apiSpec: structuredClone(document) as never,
        validateResponses: false,
        validateSecurity: false,
        fileUploader: false,
      }),
    );
  });
  afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

  /**
   * Every documented path filled in a few ways, one of them with a trailing slash, in capitals
   * or with a doubled slash and with a query string (in turn), and paths the document lacks;
   * each with every method.
   */
  const requests = (): [method: string, path: string, body?: unknown][] => {
    const fillings = ['00000000-0000-4000-8000-00000000abcd', 'not-an-id', '%E0%A4%A'];
    const queries = ['?x=1', '?limit=0&scope=all', '?limit=5&offset=0&order=name'];
    const paths = Object.keys(document.paths).flatMap((template, i) => {
      const filled = [...new Set(fillings.map((value) => template.replace(/\{[^}]+\}/g, value)))];
      const good = filled[0]!;
      const variant = [`${good}/`, good.toUpperCase(), `${good}//`][i % 3]!;
      return [...filled, variant, good + queries[i % queries.length]];
    });
    const methods = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
    return [...paths, '/api/v1/nowhere', '/api/v1/users/me/nowhere', '/elsewhere'].flatMap((path) =>
      methods.map((method): [string, string, unknown?] =>
        method === 'GET' || method === 'DELETE' ? [method, path] : [method, path, {}],
      ),
    );
  };

  const ask = async (base: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, allow: response.headers.get('allow'), body: await response.text() };
  };

  it('gives the same answer to every request', async () => {
    const all = requests();
    expect(all.length).toBeGreaterThan(600);
    const differences: string[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < all.length; i += 50) {
      await Promise.all(
        all.slice(i, i + 50).map(async ([method, path, body]) => {
          const [mine, theirs] = await Promise.all([
            ask(ours, method, path, body),
            ask(library, method, path, body),
          ]);
          statuses.add(theirs.status);
          if (JSON.stringify(mine) !== JSON.stringify(theirs))
            differences.push(`${method} ${path}: ${JSON.stringify(mine)} != ${JSON.stringify(theirs)}`);
        }),
      );
    }
    expect({ count: differences.length, first: differences.slice(0, 5) }).toEqual({ count: 0, first: [] });
    // The requests reach every kind of answer: accepted, invalid, not found, wrong method.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 404, 405, 422]));
  }, 600_000);
});
