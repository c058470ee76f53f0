import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, randomPhone, type TestUser } from '@muse/test-support/content';
import { addWebhookProvider } from '@muse/test-support/login';
import type { CodeReceiver } from '@muse/test-support/fakes/code-receivers';
import { runCli } from '../src/index.ts';
import { fakeTerminal, muse, tempConfigHome } from './support/terminal.ts';

/** The remaining verbs, run in process with a faked terminal against the real stack. */
let stack: TestStack;
let admin: TestUser;
let receiver: CodeReceiver;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.startWorker();
  admin = await createTestUser(stack, { admin: true });
  receiver = await addWebhookProvider(stack, admin, { name: 'hook' });
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

const as = (user: TestUser) => ({
  XDG_CONFIG_HOME: tempConfigHome(),
  MUSE_CONTENT_URL: stack.contentUrl,
  MUSE_TOKEN: user.token,
});

async function json(args: string[], env: Record<string, string>, input?: string[]) {
  const result = await muse([...args, '-o', 'json'], { env, ...(input ? { input } : {}) });
  expect(result, result.stderr).toMatchObject({ code: 0 });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads answers field by field
  return JSON.parse(result.stdout) as any;
}

describe('auth', { timeout: 60_000 }, () => {
  it('login asks for the phone and the code at the prompts, then status, token and logout', async () => {
    const phone = randomPhone();
    const env = { XDG_CONFIG_HOME: tempConfigHome() };
    const terminal = fakeTerminal({ env });
    const running = runCli(
      ['auth', 'login', '--content-url', stack.contentUrl, '--code-type', 'voice'],
      terminal.factory,
    );
    terminal.type(phone);
    await expect.poll(() => receiver.codeFor(phone), { timeout: 20_000 }).toBeDefined();
    terminal.type(receiver.codeFor(phone)!);
    expect(await running, terminal.stderr()).toBe(0);
    expect(receiver.codes.findLast((c) => c.phone === phone)?.code_type).toBe('voice');
    expect(terminal.stderr()).toContain(
      `Phone number: A voice call with a code is on its way to ${phone.slice(0, 3)}****${phone.slice(-4)}.\nCode: `,
    );
    expect(terminal.stdout()).toBe('');

    const status = await json(['auth', 'status'], env);
    expect(status).toMatchObject({ phone, administrator: false, balance: 100, token_from: 'config' });
    expect(Date.parse(status.token_expires_at)).toBeGreaterThan(Date.now());
    const token = await muse(['auth', 'token'], { env });
    expect(token.stdout).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+\n$/);

    expect((await muse(['auth', 'logout'], { env })).code).toBe(0);
    expect(await muse(['auth', 'token'], { env })).toMatchObject({
      code: 3,
      stderr: 'muse: not logged in (profile "default"); run: muse auth login\n',
    });
  });

  it('login --with-token reads the token from stdin and checks it', async () => {
    const user = await createTestUser(stack);
    const env = { XDG_CONFIG_HOME: tempConfigHome() };
    const result = await muse(
      ['auth', 'login', '--with-token', '--content-url', stack.contentUrl, '--profile', 'ci'],
      { env, input: [user.token] },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`as ${user.phone} on profile "ci"`);
    const refused = await muse(['auth', 'login', '--with-token', '--content-url', stack.contentUrl], {
      env,
      input: ['not-a-token'],
    });
    expect(refused.code).toBe(3);
  });

  it('a second code request inside the cool-down: exit 6 with the wait', async () => {
    const phone = randomPhone();
    const env = { XDG_CONFIG_HOME: tempConfigHome() };
    const first = await muse(['auth', 'login', '--phone', phone, '--content-url', stack.contentUrl], {
      env,
      input: [],
    });
    expect(first.code).toBe(2); // the code was sent; stdin ended before it was typed
    const second = await muse(['auth', 'login', '--phone', phone, '--content-url', stack.contentUrl], {
      env,
      input: [],
    });
    expect(second.code).toBe(6);
    expect(second.stderr).toMatch(/; try again in \d+ s\n$/);
  });
});

describe('administration', { timeout: 90_000 }, () => {
  it('providers update and remove, by name', async () => {
    const env = as(admin);
    expect(await json(['providers', 'update', 'hook', '--priority', '7', '--disable'], env)).toMatchObject({
      priority: 7,
      enabled: false,
    });
    expect(await json(['providers', 'update', 'hook', '--enable'], env)).toMatchObject({ enabled: true });
    expect((await muse(['providers', 'update', 'hook'], { env })).code).toBe(2);
    const added = await json(
      [
        'providers',
        'add',
        '--name',
        'spare',
        '--type',
        'webhook',
        '--disabled',
        '--config',
        'url=http://127.0.0.1:9/hook',
        '--secret',
        'signing_secret=-',
      ],
      env,
      ['a-signing-secret-from-stdin'],
    );
    expect(added).toMatchObject({ enabled: false, secrets_set: ['signing_secret'] });
    expect((await muse(['providers', 'remove', 'spare'], { env })).code).toBe(0);
    expect((await muse(['providers', 'get', 'spare'], { env })).code).toBe(4);
    expect(
      (
        await muse(
          ['providers', 'add', '--name', 'x', '--type', 'webhook', '--secret', 'signing_secret=plain'],
          { env },
        )
      ).stderr,
    ).toBe(
      'muse: secret signing_secret must come from a file or stdin; write signing_secret=@FILE or signing_secret=- (stdin)\n',
    );
  });

  it('payment-api get and set, the secret never shown', async () => {
    const env = as(admin);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'muse-pay-'));
    fs.writeFileSync(path.join(dir, 'key'), 'sk_test_very_secret\n');
    const result = await muse(
      [
        'payment-api',
        'set',
        'provider=stripe',
        'enabled=true',
        'currency=CNY',
        '--secret',
        `api_key=@${path.join(dir, 'key')}`,
        '-o',
        'json',
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('sk_test_very_secret');
    expect(await json(['payment-api', 'get'], env)).toMatchObject({
      provider: 'stripe',
      enabled: true,
      currency: 'CNY',
      secrets_set: ['api_key'],
    });
  });

  it('config get of an unknown setting: exit 4 listing the settings', async () => {
    const result = await muse(['config', 'get', 'nope'], { env: as(admin) });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^muse: no setting "nope"; the settings are: .*default_credit_quota/);
  });

  it('generators get, schema, update, disable, enable', async () => {
    const env = as(admin);
    const created = await json(
      ['generators', 'add', '--name', 'Texts 2', '--kind', 'text', '--type', 'builtin', '--base-cost', '1'],
      env,
    );
    expect(await json(['generators', 'get', 'Texts 2'], env)).toMatchObject({
      id: created.id,
      type: 'builtin',
    });
    expect(await json(['generators', 'schema', created.id], env)).toMatchObject({
      type: 'object',
      properties: { prompt: expect.any(Object) },
    });
    expect(
      await json(['generators', 'update', created.id, '--base-cost', '4', '--description', 'dearer'], env),
    ).toMatchObject({ base_cost: 4, description: 'dearer' });
    expect((await muse(['generators', 'disable', 'Texts 2'], { env })).code).toBe(0);
    // Disabled: administrators still find it by name, and list it on asking.
    expect(await json(['generators', 'get', 'Texts 2'], env)).toMatchObject({
      id: created.id,
      is_active: false,
    });
    const listed = (await json(['generators', 'list', '--kind', 'text'], env)) as { name: string }[];
    expect(listed.map((g) => g.name)).not.toContain('Texts 2');
    const everything = (await json(['generators', 'list', '--kind', 'text', '--include-inactive'], env)) as {
      name: string;
      is_active: boolean;
    }[];
    expect(everything).toContainEqual(expect.objectContaining({ name: 'Texts 2', is_active: false }));
    // Everyone else: not there (exit 4), and not listable (403, exit 1).
    const user = as(await createTestUser(stack));
    expect((await muse(['generators', 'get', 'Texts 2'], { env: user })).code).toBe(4);
    const refused = await muse(['generators', 'list', '--include-inactive'], { env: user });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Administrators only');
    expect(await json(['generators', 'update', 'Texts 2', '--enable'], env)).toMatchObject({
      id: created.id,
      is_active: true,
    });
  });

  it('users permission add/remove, stats, delete (confirmation needed)', async () => {
    const env = as(admin);
    const user = await createTestUser(stack);
    // By phone number as well as by id.
    expect(await json(['users', 'get', user.phone], env)).toMatchObject({ id: user.id, phone: user.phone });
    const missing = await muse(['users', 'get', '19999999999'], { env });
    expect(missing).toMatchObject({
      code: 4,
      stderr: expect.stringContaining('no account with the phone number'),
    });
    const granted = await json(['users', 'permission', 'add', user.phone, 'character:read:all'], env);
    expect(granted.permissions.granted).toContain('character:read:all');
    const revoked = await json(['users', 'permission', 'remove', user.id, 'file:delete:own'], env);
    expect(revoked.permissions.revoked).toContain('file:delete:own');
    expect(revoked.permissions.effective).not.toContain('file:delete:own');
    expect((await json(['users', 'stats'], env)).total).toBeGreaterThanOrEqual(2);

    const unconfirmed = await muse(['users', 'delete', user.id], { env });
    expect(unconfirmed).toMatchObject({
      code: 2,
      stderr: 'muse: deleting an account needs confirmation; pass --yes\n',
    });
    expect((await muse(['users', 'delete', user.id, '--yes'], { env })).code).toBe(0);
    expect((await muse(['users', 'get', user.id], { env })).code).toBe(4);
  });
});

describe('files, resources and references', { timeout: 90_000 }, () => {
  it('files upload, get, download, rm', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const env = as(user);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'muse-files-'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello muse');
    const uploaded = await json(['files', 'upload', path.join(dir, 'notes.txt'), '--public'], env);
    expect(uploaded).toMatchObject({
      name: 'notes.txt',
      visibility: 'public',
      status: 'completed',
      size: 10,
      content_type: 'text/plain',
    });
    // The content type is guessed from the extension.
    fs.writeFileSync(path.join(dir, 'dot.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    expect(await json(['files', 'upload', path.join(dir, 'dot.png')], env)).toMatchObject({
      name: 'dot.png',
      content_type: 'image/png',
    });
    const out = path.join(dir, 'out');
    const downloaded = await muse(['files', 'download', uploaded.id, '--out', out], { env });
    expect(downloaded.code, downloaded.stderr).toBe(0);
    expect(fs.readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('hello muse');
    expect((await muse(['files', 'rm', uploaded.id], { env })).code).toBe(0);
    expect((await muse(['files', 'get', uploaded.id], { env })).code).toBe(4);
    const missing = await muse(['files', 'upload', path.join(dir, 'nope.txt')], { env });
    expect(missing).toMatchObject({
      code: 4,
      stderr: `muse: cannot read ${path.join(dir, 'nope.txt')}: ENOENT\n`,
    });
  });

  it('generate video --reference uploads a local file first', async () => {
    const user = await createTestUser(stack, { balance: 10 });
    const env = as(user);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'muse-ref-'));
    fs.writeFileSync(path.join(dir, 'ref.txt'), 'a reference');
    const result = await muse(
      [
        'generate',
        'video',
        '--generator',
        'Built-in videos',
        '--prompt',
        'waves',
        '--reference',
        path.join(dir, 'ref.txt'),
        '--wait',
        '-o',
        'json',
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^Uploaded .*ref\.txt as [0-9a-f-]{36}\n/);
    expect(JSON.parse(result.stdout)).toEqual([
      expect.objectContaining({ status: 'completed', content_type: 'image/gif' }),
    ]);
    const names = (await json(['files', 'list'], env)).map((f: { name: string }) => f.name);
    expect(names).toContain('ref.txt');
  });

  it("api: any call with the profile's credentials, the answer on stdout", async () => {
    const user = await createTestUser(stack);
    const env = as(user);
    expect(JSON.parse((await muse(['api', 'GET', '/api/v1/users/me'], { env })).stdout)).toMatchObject({
      id: user.id,
    });
    const created = await json(['api', 'POST', '/api/v1/characters', '--set', 'name=Via api'], env);
    expect(created).toMatchObject({ name: 'Via api' });
    const listed = await json(['api', 'GET', '/api/v1/characters', '--query', 'limit=1'], env);
    expect(listed).toHaveLength(1);
    expect((await muse(['api', 'DELETE', `/api/v1/characters/${created.id}`], { env })).code).toBe(0);
    expect((await muse(['api', 'GET', `/api/v1/characters/${created.id}`], { env })).code).toBe(4);
    expect((await muse(['api', 'FETCH', '/x'], { env })).code).toBe(2);
  });

  it('resources create, list, get, update, delete', async () => {
    const user = await createTestUser(stack);
    const env = as(user);
    const created = await json(['resources', 'create', 'project', '--set', 'name=Atlas'], env);
    expect(created).toMatchObject({ name: 'Atlas', visibility: 'private' });
    expect((await json(['resources', 'list', 'projects'], env)).map((p: { id: string }) => p.id)).toEqual([
      created.id,
    ]);
    expect(
      await json(['resources', 'update', 'project', created.id, '--data', '{"visibility":"public"}'], env),
    ).toMatchObject({ visibility: 'public' });
    expect(await json(['resources', 'get', 'project', created.id], env)).toMatchObject({
      name: 'Atlas',
      visibility: 'public',
    });
    expect((await muse(['resources', 'delete', 'project', created.id], { env })).code).toBe(0);
    expect((await muse(['resources', 'get', 'project', created.id], { env })).code).toBe(4);
    expect((await muse(['resources', 'list', 'widgets'], { env })).stderr).toMatch(
      /^muse: no resource "widgets"; the resources are: character, /,
    );
  });
});
