import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from './support/stack.ts';

/**
 * What the reference pages are served with on both APIs: documents whose `servers` are relative
 * (so "Try it out" calls the address the page came from), a page with the operations' filter box,
 * and a root that points at the reference. The pages themselves are checked in Chromium
 * (test/browser/docs.test.ts); the examples "Try it out" sends are made against the live APIs in
 * reference-pages-content-examples.test.ts and reference-pages-chat-examples.test.ts.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const apis = () => [
  ['content API', stack.contentUrl],
  ['messaging API', stack.chatUrl],
];

describe('the reference pages of both APIs', () => {
  it('serve documents whose only server is the one they are served from', async () => {
    for (const [, url] of apis()) {
      const document = (await (await fetch(`${url}/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(document.servers.map((server) => server.url)).toEqual(['/']);
    }
  });

  it('describe every operation of both APIs, with a summary and a description', async () => {
    for (const [api, url] of apis()) {
      const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { summary?: string; description?: string }>>;
      };
      const undescribed = Object.entries(document.paths).flatMap(([route, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
          .filter(([, operation]) => !operation.summary?.trim() || !operation.description?.trim())
          .map(([method]) => `${method.toUpperCase()} ${route}`),
      );
      expect({ api, undescribed }).toEqual({ api, undescribed: [] });
    }
  });

  it('group operations for readers: one tag per area, the probes last', async () => {
    for (const [api, url] of apis()) {
      const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
        tags: { name: string }[];
        paths: Record<string, Record<string, { tags?: string[] }>>;
      };
      const names = document.tags.map((tag) => tag.name);
      expect({ api, duplicated: names.filter((name, i) => names.indexOf(name) !== i) }).toEqual({
        api,
        duplicated: [],
      });
      // Every tag an operation carries is declared, and the one holding /healthz comes last,
      // in the tags and in the paths alike.
      const used = Object.values(document.paths).flatMap((item) =>
        Object.values(item).flatMap((operation) => operation.tags ?? []),
      );
      expect(new Set(used)).toEqual(new Set(names));
      const probes = document.paths['/healthz']!.get!.tags![0];
      expect({ api, last: names.at(-1) }).toEqual({ api, last: probes });
      const routes = Object.keys(document.paths);
      const firstProbe = routes.findIndex((route) => document.paths[route]!.get?.tags?.includes(probes!));
      expect(
        routes.slice(firstProbe).every((route) => document.paths[route]!.get?.tags?.includes(probes!)),
      ).toBe(true);
    }
    const content = (await (await fetch(`${stack.contentUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    // Buying credits, the providers' notifications and reading the orders are one group (the
    // providers' configuration is the administrators').
    const paymentTags = new Set(
      Object.entries(content.paths)
        .filter(([route]) => /^\/api\/v1\/payment(s|-notifications)(\/|$)/.test(route))
        .flatMap(([, item]) => Object.values(item).flatMap((operation) => operation.tags ?? [])),
    );
    expect([...paymentTags]).toEqual(['payment']);
  });

  it('render the served document with a filter box', async () => {
    for (const [, url] of apis()) {
      const init = await (await fetch(`${url}/docs/init.js`)).text();
      expect(init).toContain("url: '/openapi.json'");
      expect(() => new Function('SwaggerUIBundle', init)).not.toThrow(); // it parses
      expect(init).toContain('filter: true');
      expect(init).toContain("tagsSorter: (a, b) => (a === 'operations') - (b === 'operations')");
    }
  });

  it('show the AsyncAPI servers at the address the page came from', async () => {
    const init = await (await fetch(`${stack.contentUrl}/docs/asyncapi-init.js`)).text();
    expect(init).toContain('server.host = window.location.host');
  });

  it('answer GET / with where the reference is: a redirect for a browser, JSON otherwise', async () => {
    for (const [, url] of apis()) {
      const browser = await fetch(`${url}/`, { headers: { accept: 'text/html,*/*' }, redirect: 'manual' });
      expect(browser.status).toBe(302);
      expect(browser.headers.get('location')).toBe('/docs');
      const client = await fetch(`${url}/`, { headers: { accept: 'application/json' } });
      expect(client.status).toBe(200);
      expect(await client.json()).toMatchObject({ reference: '/docs', openapi: '/openapi.json' });
    }
    const content = (await (await fetch(`${stack.contentUrl}/`)).json()) as Record<string, string>;
    expect(content.asyncapi).toBe('/asyncapi.json');
  });
});
