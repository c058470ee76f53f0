import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { balanceOf, createTestUser, type TestUser } from '@muse/test-support/content';
import { api } from '@muse/test-support/login';
import { startFakeOpenAi } from '@muse/test-support/fakes/openai';
import type { FakeServer } from '@muse/test-support/fakes/server';
import { muse, tempConfigHome } from './support/terminal.ts';

/** `muse generate --wait` in process, with the terminal faked, against the real stack and worker. */
let stack: TestStack;
let user: TestUser;
let upstream: FakeServer;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.startWorker();
  const admin = await createTestUser(stack, { admin: true });
  user = await createTestUser(stack, { balance: 100 });
  upstream = await startFakeOpenAi('the-real-key');
  const generators = [
    { name: 'Slow images', kind: 'image', type: 'builtin', base_cost: 1, config: { delay_ms: 1200 } },
    {
      name: 'Wrong key',
      kind: 'image',
      type: 'openai',
      base_cost: 3,
      config: { base_url: `${upstream.url}/v1`, model: 'dall-e', max_attempts: 1 },
      secrets: { api_key: `not-${randomBytes(4).toString('hex')}` },
    },
    {
      name: 'Busy texts',
      kind: 'text',
      type: 'openai',
      base_cost: 1,
      config: { base_url: `${upstream.url}/v1`, model: 'gpt', max_attempts: 1 },
      secrets: { api_key: 'the-real-key' },
    },
  ];
  for (const body of generators) {
    const created = await api(stack, '/api/v1/generators', { method: 'POST', headers: admin.headers, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
});

afterAll(async () => {
  await upstream?.close();
  await stack?.stop();
});

const env = () => ({
  XDG_CONFIG_HOME: tempConfigHome(),
  MUSE_CONTENT_URL: stack.contentUrl,
  MUSE_TOKEN: user.token,
});

describe('muse generate --wait', { timeout: 180_000 }, () => {
  it('on a terminal: one live status line, redrawn in place and cleared, then the table', async () => {
    const result = await muse(
      ['generate', 'image', '--generator', 'Slow images', '--prompt', 'tty', '--wait'],
      {
        tty: true,
        env: env(),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('\n');
    expect(result.stderr).toMatch(/^\r\x1b\[2K\S generating: pending \(\d+s\)/);
    expect(result.stderr).toContain('generating: completed');
    expect(result.stderr.endsWith('\r\x1b[2K')).toBe(true);
    // A terminal gets colour: bold headers.
    expect(result.stdout).toMatch(/^\x1b\[1mID\x1b\[22m\s+\x1b\[1mNAME\x1b\[22m/);
    expect(result.stdout.split('\n')[1]).toMatch(/^\S+\s+tty\.png\s+completed\s+image\/png\s+\d+\s+private/);
  });

  it('elsewhere: one line per status change', async () => {
    const result = await muse(
      ['generate', 'image', '--generator', 'Slow images', '--prompt', 'log', '--wait'],
      {
        env: env(),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^generating: pending\n(generating: processing\n)?generating: completed\n$/,
    );
  });

  it('two files: one line counts them by status', async () => {
    const result = await muse(
      [
        'generate',
        'image',
        '--generator',
        'Slow images',
        '--prompt',
        'two',
        '--count',
        '2',
        '--wait',
        '-o',
        'json',
      ],
      { env: env() },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe('generating 2 files: 2 pending');
    expect(result.stderr).toContain('generating 2 files: 2 completed\n');
    expect(JSON.parse(result.stdout)).toHaveLength(2);
  });

  it('a failed generation prints its error message, exits 1, and was refunded', async () => {
    const before = await balanceOf(stack, user.id);
    const result = await muse(['generate', 'image', '--generator', 'Wrong key', '--prompt', 'x', '--wait'], {
      env: env(),
    });
    expect(result.code).toBe(1);
    const last = result.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(/^muse: generation failed: .+ \(file [0-9a-f-]{36}\); the credits were refunded/);
    expect(await balanceOf(stack, user.id)).toBe(before);
  });

  it('an upstream that rate limits: 529 says when to try again (exit 6), with --wait and without, and nothing is paid', async () => {
    upstream.script({ rateLimit: { retryAfterSeconds: 30 } });
    const before = await balanceOf(stack, user.id);
    for (const wait of [['--wait'], []]) {
      const result = await muse(['generate', 'text', '--generator', 'Busy texts', '--prompt', 'x', ...wait], {
        env: env(),
      });
      expect({ wait, code: result.code }).toEqual({ wait, code: 6 });
      expect(result.stderr).toMatch(/rate limiting.*try again in \d+ s/s);
    }
    expect(await balanceOf(stack, user.id)).toBe(before);
  });

  it('without --wait: the file ids, for scripts', async () => {
    const result = await muse(
      ['generate', 'text', '--generator', 'Built-in texts', '--prompt', 'hi', '-o', 'json'],
      {
        env: env(),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ file_ids: [expect.any(String)], status: 'pending' });
  });

  it('a text with --wait: the text on stdout; with -o json its record', async () => {
    const text = await muse(
      ['generate', 'text', '--generator', 'Built-in texts', '--prompt', 'a fox', '--wait'],
      {
        env: env(),
      },
    );
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^a fox\n\n[A-Z][^\n]+\.\n$/);
    const json = await muse(
      ['generate', 'text', '--generator', 'Built-in texts', '--prompt', 'a fox', '--wait', '-o', 'json'],
      { env: env() },
    );
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ status: 'completed', content_type: expect.stringMatching(/^text\/plain/) }),
    ]);
  });

  it('--out - streams the results to stdout, and files download --out - the same file', async () => {
    const generated = await muse(
      ['generate', 'image', '--generator', 'Built-in images', '--prompt', 'to stdout', '--out', '-'],
      { env: env() },
    );
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout.slice(1, 4)).toBe('PNG');
    expect(existsSync('-')).toBe(false);
    const listed = await muse(['files', 'list', '--limit', '1', '-o', 'json'], { env: env() });
    const [latest] = JSON.parse(listed.stdout) as { id: string; name: string }[];
    expect(latest!.name).toBe('to stdout.png');
    const downloaded = await muse(['files', 'download', latest!.id, '--out', '-'], { env: env() });
    expect(downloaded.code, downloaded.stderr).toBe(0);
    expect(downloaded.stdout).toBe(generated.stdout);
    expect(downloaded.stderr).toBe('');
  });
});
