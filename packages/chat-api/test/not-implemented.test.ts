import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chatEndpoints } from '../src/views/index.ts';

// The README's "Not implemented" list is exact: every operation of Zulip's document is either
// served or listed there, and nothing listed is served.
const METHODS = ['get', 'post', 'patch', 'delete'] as const;
const DOCUMENTATION_ONLY = new Set(['/real-time', '/rest-error-handling', '/zulip-outgoing-webhook']);
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

describe("the README's list of what is not implemented", () => {
  it("names exactly the operations of Zulip's document that are not served", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Not implemented'),
      readme.indexOf('## Leniency beyond Zulip'),
    );
    const listed = new Set<string>();
    for (const [, more = '', method, path] of section.matchAll(
      /((?:`(?:GET|POST|PATCH|DELETE)`\/)*)`(GET|POST|PATCH|DELETE) (\/[^`]+)`/g,
    ))
      for (const m of [...(more.match(/GET|POST|PATCH|DELETE/g) ?? []), method])
        listed.add(`${m} ${shape(path!)}`);
    const served = new Set(
      chatEndpoints.flatMap((e) =>
        (typeof e.method === 'string' ? [e.method] : e.method).map(
          (m) => `${m.toUpperCase()} ${shape(e.path)}`,
        ),
      ),
    );
    const doc = parse(
      readFileSync(new URL('./fixtures/zulip/zulip-openapi.yaml', import.meta.url), 'utf8'),
    ) as { paths: Record<string, Record<string, unknown>> };
    const unserved = Object.entries(doc.paths)
      .filter(([path]) => !DOCUMENTATION_ONLY.has(path))
      .flatMap(([path, ops]) =>
        METHODS.filter((m) => m in ops).map((m) => `${m.toUpperCase()} ${shape(path)}`),
      )
      .filter((op) => !served.has(op));
    expect([...listed].sort()).toEqual(unserved.sort());
  });
});
