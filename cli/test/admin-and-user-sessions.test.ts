import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone } from '@muse/test-support/content';
import { addWebhookProvider } from '@muse/test-support/login';
import { startWebhookReceiver, type CodeReceiver } from '@muse/test-support/fakes/code-receivers';
import { runMuse, spawnMuse } from './support/spawn.ts';
import { tempConfigHome } from './support/terminal.ts';

/**
 * The real `muse` binary, one process per command, against the real stack: an administrator
 * sets the platform up, a user generates. Every value the test checks comes back through the
 * CLI's own output (JSON parsed here), never from the database.
 */
let stack: TestStack;
let bootstrapReceiver: CodeReceiver;
let cliReceiver: CodeReceiver;
let env: Record<string, string>;
const adminPhone = randomPhone();
const userPhone = randomPhone();
let userId: string;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.startWorker();
  // The platform's first administrator and code provider exist before any CLI can log in.
  const bootstrap = await createTestUser(stack, { admin: true });
  bootstrapReceiver = await addWebhookProvider(stack, bootstrap, { priority: 50 });
  await stack.database.db.query(`UPDATE content.users SET phone = :phone WHERE id = :id`, {
    replacements: { phone: adminPhone, id: bootstrap.id },
  });
  cliReceiver = await startWebhookReceiver(randomBytes(16).toString('hex'));
  env = { XDG_CONFIG_HOME: tempConfigHome() };
});

afterAll(async () => {
  await bootstrapReceiver?.close();
  await cliReceiver?.close();
  await stack?.stop();
});

/** `muse auth login`: the code is typed at the prompt once the receiver got it. */
async function login(phone: string, receiver: CodeReceiver, extra: string[] = []) {
  const muse = spawnMuse(
    [
      'auth',
      'login',
      '--phone',
      phone,
      '--content-url',
      stack.contentUrl,
      '--chat-url',
      stack.chatUrl,
      ...extra,
    ],
    env,
  );
  await muse.waitForStderr('Code: ');
  muse.child.stdin.end(`${receiver.codeFor(phone)}\n`);
  return muse.exited;
}

async function json(args: string[], input = '') {
  const result = await runMuse([...args, '-o', 'json'], env, input);
  expect(result, result.stderr).toMatchObject({ code: 0 });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads answers field by field
  return JSON.parse(result.stdout) as any;
}

describe('an administrator session', { timeout: 180_000 }, () => {
  it('logs in through the webhook code provider and stores the token in a 0600 file', async () => {
    const result = await login(adminPhone, bootstrapReceiver);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `Logged in to ${stack.contentUrl} as ${adminPhone} (administrator) on profile "default"`,
    );
    const file = path.join(env.XDG_CONFIG_HOME!, 'muse', 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const status = await json(['auth', 'status']);
    expect(status).toMatchObject({
      profile: 'default',
      phone: adminPhone,
      administrator: true,
      token_from: 'config',
    });
  });

  it('adds a code provider whose secret comes from a file and is never printed', async () => {
    const secretFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'muse-secret-')), 'secret');
    const secret = randomBytes(16).toString('hex');
    fs.writeFileSync(secretFile, `${secret}\n`);
    // The receiver checks signatures with the secret it was started with: give it the same one.
    await cliReceiver.close();
    cliReceiver = await startWebhookReceiver(secret);
    const result = await runMuse(
      [
        'providers',
        'add',
        '--name',
        'cli-hook',
        '--type',
        'webhook',
        '--priority',
        '5',
        '--config',
        `url=${cliReceiver.url}`,
        '--secret',
        `signing_secret=@${secretFile}`,
      ],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(secret);
    const providers = await json(['providers', 'list']);
    expect(providers.map((p: { name: string }) => p.name)).toEqual(['cli-hook', expect.any(String)]);
    expect(providers[0]).toMatchObject({ type: 'webhook', secrets_set: ['signing_secret'], priority: 5 });
    expect(await json(['providers', 'get', 'cli-hook'])).toMatchObject({ config: { url: cliReceiver.url } });
  });

  it('creates a generator and sets server-config', async () => {
    const generator = await json([
      'generators',
      'add',
      '--name',
      'Slow images',
      '--kind',
      'image',
      '--type',
      'builtin',
      '--base-cost',
      '2',
      '--config',
      'delay_ms=1500',
    ]);
    expect(generator).toMatchObject({
      name: 'Slow images',
      kind: 'image',
      base_cost: 2,
      config: { delay_ms: 1500 },
    });
    const listed = await json(['generators', 'list', '--kind', 'image']);
    expect(listed.map((g: { name: string }) => g.name)).toContain('Slow images');

    expect((await runMuse(['config', 'set', 'default_credit_quota=50'], env)).code).toBe(0);
    const value = await runMuse(['config', 'get', 'default_credit_quota'], env);
    expect(value).toMatchObject({ code: 0, stdout: '50\n' });
  });

  it('a new user logs in on a second profile, through the provider the CLI added', async () => {
    const result = await login(userPhone, cliReceiver, ['--profile', 'user']);
    expect(result.code, result.stderr).toBe(0);
    const me = await json(['me', '--profile', 'user']);
    expect(me).toMatchObject({ phone: userPhone, balance: 50, is_admin: false });
    userId = me.id;
    const users = await json(['users', 'list', '--all']);
    expect(users.map((u: { phone: string }) => u.phone)).toEqual(
      expect.arrayContaining([adminPhone, userPhone]),
    );
  });

  it('bans and unbans the user: a banned user is refused at once', async () => {
    expect((await json(['users', 'ban', userId])).is_active).toBe(false);
    const refused = await runMuse(['me', '--profile', 'user'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /^muse: .*; this needs an administrator account, or the account is banned/,
    );
    expect((await json(['users', 'unban', userId])).is_active).toBe(true);
    expect((await runMuse(['me', '--profile', 'user'], env)).code).toBe(0);
  });

  it('grants and revokes administrator rights', async () => {
    expect((await json(['users', 'grant-admin', userId])).is_admin).toBe(true);
    expect(await json(['auth', 'status', '--profile', 'user'])).toMatchObject({ administrator: true });
    expect((await json(['users', 'revoke-admin', userId])).is_admin).toBe(false);
    const refused = await runMuse(['users', 'stats', '--profile', 'user'], env);
    expect(refused.code).toBe(1);
  });

  it('adjusts credits both ways; the ledger shows the adjustments', async () => {
    expect((await json(['users', 'credit', userId, '+25', '--reason', 'welcome bonus'])).balance).toBe(75);
    expect((await json(['users', 'credit', userId, '-5', '--reason', 'correction'])).balance).toBe(70);
    const entries = await json([
      'transactions',
      'list',
      '--all',
      '--kind',
      'adjustment',
      '--profile',
      'user',
    ]);
    expect(entries.map((e: { amount: number }) => e.amount).sort()).toEqual([-5, 25]);
    const tooMuch = await runMuse(['users', 'credit', userId, '-1000', '--reason', 'x'], env);
    expect(tooMuch.code).toBe(1);
    expect((await json(['users', 'get', userId])).balance).toBe(70);
  });
});

describe('a user session', { timeout: 180_000 }, () => {
  it('generates an image with --wait --out: progress lines, the file on disk', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'muse-out-'));
    const result = await runMuse(
      [
        'generate',
        'image',
        '--generator',
        'Slow images',
        '--prompt',
        'a red fox',
        '--wait',
        '--out',
        out,
        '--profile',
        'user',
        '-o',
        'json',
      ],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    // Not a terminal: one line per change of status.
    expect(result.stderr).toMatch(
      /^generating: pending\n(generating: processing\n)?generating: completed\n$/,
    );
    const [file] = JSON.parse(result.stdout) as { id: string; status: string; path: string }[];
    expect(file).toMatchObject({ status: 'completed', content_type: 'image/png' });
    expect(fs.readFileSync(file!.path).subarray(1, 4).toString()).toBe('PNG');

    expect(await json(['files', 'get', file!.id, '--profile', 'user'])).toMatchObject({
      id: file!.id,
      status: 'completed',
    });
    const files = await json(['files', 'list', '--all', '--profile', 'user']);
    expect(files.map((f: { id: string }) => f.id)).toContain(file!.id);
    const charges = await json(['transactions', 'list', '--all', '--kind', 'charge', '--profile', 'user']);
    expect(charges.map((e: { amount: number }) => e.amount)).toEqual([-2]);
  });

  it('--all walks every page; --limit stops early', async () => {
    for (let i = 0; i < 3; i++) {
      expect(
        (
          await runMuse(
            ['generate', 'text', '--generator', 'Built-in texts', '--prompt', `t${i}`, '--profile', 'user'],
            env,
          )
        ).code,
      ).toBe(0);
    }
    const all = await json(['files', 'list', '--all', '--profile', 'user']);
    expect(all).toHaveLength(4);
    expect(await json(['files', 'list', '--limit', '2', '--profile', 'user'])).toHaveLength(2);
  });
});
