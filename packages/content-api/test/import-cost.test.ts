import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Runs in a fresh process: counts the reads of the document's YAML files while the package root
// is imported, then when the document is asked for.
const probe = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const read = [];
const original = fs.readFileSync;
fs.readFileSync = (file, ...rest) => { read.push(String(file)); return original(file, ...rest); };
syncBuiltinESMExports();
const content = await import('@muse/content-api');
const documents = () => read.filter((file) => file.includes('content-api/openapi/') && file.endsWith('.yaml')).length;
const before = documents();
content.contentOpenApiDocument();
console.log(JSON.stringify({ before, after: documents() }));
`;

describe('importing @muse/content-api', () => {
  it('does not build the OpenAPI document until a process asks for it (worker and operator never do)', () => {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
    });
    const { before, after } = JSON.parse(output.trim().split('\n').at(-1)!) as {
      before: number;
      after: number;
    };
    expect(before).toBe(0);
    expect(after).toBeGreaterThan(0);
  });
});
