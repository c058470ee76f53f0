import fs from 'node:fs';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { runMuse, spawnMuse } from './support/spawn.ts';
import { tempConfigHome } from './support/terminal.ts';

/** Messaging administration through the real `muse` binary against the real messaging API. */
let stack: TestStack;
let env: Record<string, string>;
let member: { id: number; email: string };
const owner = { email: 'owner@example.com', password: 'owner-secret-1' };

beforeAll(async () => {
  stack = await startTestStack();
  await createOrganization(stack.database.db, { subdomain: '', name: 'Acme' });
  await createChatUser(stack.database.db, {
    subdomain: '',
    email: owner.email,
    fullName: 'Owner',
    password: owner.password,
    role: 100,
  });
  const created = await createChatUser(stack.database.db, {
    subdomain: '',
    email: 'member@example.com',
    fullName: 'Member',
    password: 'member-secret-1',
    role: 400,
  });
  member = { id: created.id, email: 'member@example.com' };
  env = { XDG_CONFIG_HOME: tempConfigHome() };
});

afterAll(async () => {
  await stack?.stop();
});

async function json(args: string[]) {
  const result = await runMuse([...args, '-o', 'json'], env);
  expect(result, result.stderr).toMatchObject({ code: 0 });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads answers field by field
  return JSON.parse(result.stdout) as any;
}

describe('muse chat', { timeout: 180_000 }, () => {
  it('login: a wrong password is exit 3; the right one stores the API key', async () => {
    const wrong = await runMuse(
      ['chat', 'login', '--email', owner.email, '--chat-url', stack.chatUrl],
      env,
      'nope\n',
    );
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/muse: Your username or password is incorrect; run: muse chat login\n$/);
    const right = await runMuse(
      ['chat', 'login', '--email', owner.email, '--chat-url', stack.chatUrl],
      env,
      `${owner.password}\n`,
    );
    expect(right.code, right.stderr).toBe(0);
    expect(right.stderr).toContain(`Logged in to ${stack.chatUrl} as Owner <${owner.email}>`);
    expect(right.stderr).not.toContain(owner.password);
    expect(await json(['profile', 'list'])).toEqual([
      expect.objectContaining({ name: 'default', chat_user: owner.email }),
    ]);
  });

  it('login --api-key - stores a key read from stdin on another profile', async () => {
    const config = JSON.parse(
      fs.readFileSync(path.join(env.XDG_CONFIG_HOME!, 'muse', 'config.json'), 'utf8'),
    ) as { profiles: Record<string, { chat_api_key: string }> };
    const apiKey = config.profiles.default!.chat_api_key;
    const result = await runMuse(
      [
        'chat',
        'login',
        '--email',
        owner.email,
        '--api-key',
        '-',
        '--chat-url',
        stack.chatUrl,
        '--profile',
        'bot',
      ],
      env,
      `${apiKey}\n`,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await json(['chat', 'users', 'get', owner.email, '--profile', 'bot'])).toMatchObject({
      role: 100,
    });
    // A key the server refuses is not stored: the default profile keeps its working key.
    const wrong = await runMuse(
      ['chat', 'login', '--email', owner.email, '--api-key', 'nope', '--chat-url', stack.chatUrl],
      env,
    );
    expect(wrong.code).toBe(3);
    expect((await runMuse(['chat', 'users', 'get', owner.email], env)).code).toBe(0);
  });

  it('users: list, get, set-role, deactivate, reactivate', async () => {
    const users = await json(['chat', 'users', 'list']);
    expect(users.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining([owner.email, member.email]),
    );
    expect((await runMuse(['chat', 'users', 'set-role', String(member.id), 'moderator'], env)).code).toBe(0);
    expect(await json(['chat', 'users', 'get', String(member.id)])).toMatchObject({ role: 300 });
    expect((await runMuse(['chat', 'users', 'deactivate', String(member.id)], env)).code).toBe(0);
    expect(await json(['chat', 'users', 'get', String(member.id)])).toMatchObject({ is_active: false });
    expect((await runMuse(['chat', 'users', 'reactivate', String(member.id)], env)).code).toBe(0);
    expect(await json(['chat', 'users', 'get', String(member.id)])).toMatchObject({ is_active: true });
  });

  it('channels: subscribe creates, list shows, unsubscribe removes', async () => {
    expect(
      (await runMuse(['chat', 'channels', 'subscribe', 'general', 'random', '--description', 'Talk'], env))
        .code,
    ).toBe(0);
    const names = (await json(['chat', 'channels', 'list'])).map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(['general', 'random']));
    expect((await runMuse(['chat', 'channels', 'unsubscribe', 'random'], env)).code).toBe(0);
    expect((await json(['chat', 'channels', 'list'])).map((c: { name: string }) => c.name)).not.toContain(
      'random',
    );
  });

  it('events tail streams a sent message and stops cleanly on Ctrl-C', async () => {
    const tail = spawnMuse(['chat', 'events', 'tail', '--type', 'message', '-o', 'json'], env);
    await tail.waitForStderr('Listening for events');
    const sent = await json([
      'chat',
      'send',
      '--channel',
      'general',
      '--topic',
      'greetings',
      '-m',
      'hello from the CLI',
    ]);
    expect(sent).toEqual({ id: expect.any(Number) });
    const direct = await runMuse(
      ['chat', 'send', '--to', String(member.id), '-m', '-'],
      env,
      'a direct word\n',
    );
    expect(direct.code, direct.stderr).toBe(0);
    await expect
      .poll(() => tail.stdout().trim().split('\n').filter(Boolean).length, { timeout: 20_000 })
      .toBe(2);
    tail.child.kill('SIGINT');
    const ended = await tail.exited;
    expect(ended.code).toBe(0);
    const events = ended.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message: { id: number; content: string } });
    expect(events.map((e) => e.type)).toEqual(['message', 'message']);
    expect(events[0]!.message.id).toBe(sent.id);
  });

  it('schedule: a channel message for a later time is stored for that second; a past time is refused', async () => {
    const scheduled = await json([
      'chat',
      'schedule',
      '--channel',
      'general',
      '--topic',
      'later',
      '--at',
      '+2h',
      '-m',
      'in two hours',
    ]);
    expect(scheduled).toEqual({ id: expect.any(Number), at: expect.any(String) });
    const at = Date.parse(scheduled.at);
    expect(at - Date.now()).toBeGreaterThan(110 * 60_000);
    const [row] = await stack.database.db.query<{ content: string; topic: string; deliver_at: Date }>(
      'SELECT content, topic, deliver_at FROM chat.scheduled_messages WHERE id = :id',
      { replacements: { id: scheduled.id }, type: QueryTypes.SELECT },
    );
    expect(row).toMatchObject({ content: 'in two hours', topic: 'later' });
    expect(Math.floor(row!.deliver_at.getTime() / 1000)).toBe(Math.floor(at / 1000));
    const past = await runMuse(
      ['chat', 'schedule', '--to', String(member.id), '--at', '2020-01-01T00:00:00Z', '-m', 'x'],
      env,
    );
    expect(past).toMatchObject({
      code: 2,
      stderr: 'muse: --at 2020-01-01T00:00:00.000Z is not in the future\n',
    });
  });

  it('send without a destination is a usage error', async () => {
    const result = await runMuse(['chat', 'send', '-m', 'lost'], env);
    expect(result).toMatchObject({
      code: 2,
      stderr: 'muse: say where: --channel NAME --topic TOPIC, or --to USER (not both)\n',
    });
  });
});
