import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { muse, tempConfigHome } from './support/terminal.ts';

/** The README's exit-code table: code → meaning. */
function documentedExitCodes(): Map<number, string> {
  const readme = readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');
  const table = /### Exit codes\n+\| code \| meaning \|\n\|[-|]+\|\n((?:\|.*\|\n)+)/.exec(readme);
  if (!table) throw new Error('cli/README.md has no exit-code table');
  return new Map(
    table[1]!
      .trim()
      .split('\n')
      .map((row) => row.split('|').map((cell) => cell.trim()))
      .map(([, code, meaning]) => [Number(code), meaning!]),
  );
}

// A content API that answers every request with the status the case asks for, in the API's error shape.
let status = 200;
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
    response.end(JSON.stringify({ code: `status_${status}`, message: `answered ${status}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

interface Case {
  why: string;
  args: string[];
  /** The status the fake server answers with. */
  answer?: number;
  loggedIn?: boolean;
  /** Another content-API address than the fake server's. */
  contentUrl?: string;
}

const CASES: Record<number, Case[]> = {
  0: [{ why: 'success', args: ['--version'] }],
  1: [
    { why: 'the server refused', args: ['me'], answer: 500, loggedIn: true },
    { why: 'no server', args: ['me'], loggedIn: true, contentUrl: 'http://127.0.0.1:1' },
  ],
  2: [
    { why: 'unknown flag', args: ['me', '--bogus'] },
    { why: 'unknown command', args: ['nosuchcommand'] },
    { why: 'bad value', args: ['generators', 'list', '--kind', 'sound'] },
  ],
  3: [
    { why: 'not logged in', args: ['me'] },
    { why: 'token refused', args: ['me'], answer: 401, loggedIn: true },
  ],
  4: [
    {
      why: '404',
      args: ['files', 'get', '00000000-0000-4000-8000-000000000009'],
      answer: 404,
      loggedIn: true,
    },
    { why: 'unknown profile', args: ['--profile', 'nosuchprofile', 'me'] },
    { why: 'unknown profile from MUSE_PROFILE', args: ['files', 'list'], answer: 200 },
  ],
  5: [{ why: '402', args: ['me'], answer: 402, loggedIn: true }],
  6: [{ why: '429', args: ['me'], answer: 429, loggedIn: true }],
};

describe('exit codes', () => {
  it('covers every code of the README table, and only those', () => {
    expect([...documentedExitCodes().keys()].sort()).toEqual(Object.keys(CASES).map(Number).sort());
  });

  for (const [code, cases] of Object.entries(CASES))
    for (const c of cases)
      it(`${code}: ${c.why} (muse ${c.args.join(' ')})`, async () => {
        status = c.answer ?? 200;
        const env: Record<string, string> = {
          XDG_CONFIG_HOME: tempConfigHome(),
          MUSE_CONTENT_URL: c.contentUrl ?? url,
          ...(c.loggedIn ? { MUSE_TOKEN: 'a-token' } : {}),
          ...(c.why === 'unknown profile from MUSE_PROFILE' ? { MUSE_PROFILE: 'nosuchprofile' } : {}),
        };
        const result = await muse(c.args, { env });
        expect(result.code, result.stderr).toBe(Number(code));
      });

  it('names the way to buy credits on 402', async () => {
    status = 402;
    const result = await muse(['me'], {
      env: { XDG_CONFIG_HOME: tempConfigHome(), MUSE_CONTENT_URL: url, MUSE_TOKEN: 't' },
    });
    expect(result.stderr).toContain('muse credits buy');
  });

  it('names the unknown profile and how to create it', async () => {
    const result = await muse(['--profile', 'nosuchprofile', 'me'], {
      env: { XDG_CONFIG_HOME: tempConfigHome() },
    });
    expect(result.stderr).toBe(
      'muse: no profile "nosuchprofile"; create it with: muse auth login --profile nosuchprofile\n',
    );
  });
});
