import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { makeOrganization, makeUser } from '@muse/test-support/chat';
import { createChatClient, createContentClient } from '../src/index.ts';

const examples = fileURLToPath(new URL('../examples/', import.meta.url));

/** Runs an example script as a user would (node, in sdk/examples) and follows its output. */
function runExample(script: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: examples,
    env: { ...process.env, ...env },
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    output: () => output,
    exited: async () => ({ code: await exited, output }),
    printed: (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => output.includes(text) && resolve();
        listeners.add(check);
        check();
        void exited.then(() => reject(new Error(`exited before printing "${text}":\n${output}`)));
      }),
  };
}

describe('sdk/examples against the real stack', () => {
  let stack: TestStack;
  let user: TestUser;
  let folder: string;
  const contentEnv = () => ({ MUSE_URL: stack.contentUrl, MUSE_TOKEN: user.token });

  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
    user = await createTestUser(stack, { balance: 10 });
    folder = await mkdtemp(path.join(os.tmpdir(), 'muse-sdk-examples-'));
  });
  afterAll(async () => {
    await stack?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('generate-image.ts generates an image and saves it', { timeout: 120_000 }, async () => {
    const out = path.join(folder, 'fox.png');
    const { code, output } = await runExample('generate-image.ts', ['a red fox', out], contentEnv()).exited();
    expect(code, output).toBe(0);
    expect(output).toMatch(/: completed\n[\s\S]*saved /);
    const bytes = await readFile(out);
    expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });

  it('list-characters.ts walks every page of the caller’s characters', { timeout: 120_000 }, async () => {
    const muse = createContentClient({ baseUrl: stack.contentUrl, token: user.token });
    for (const name of ['Ada', 'Grace', 'Linus']) await muse.POST('/api/v1/characters', { body: { name } });
    const { code, output } = await runExample('list-characters.ts', [], contentEnv()).exited();
    expect(code, output).toBe(0);
    expect(output).toMatch(/ Ada\n.* Grace\n.* Linus\n3 characters\n$/);
  });

  it(
    'chat-listen.ts prints the messages it receives and stops after the count',
    { timeout: 120_000 },
    async () => {
      await makeOrganization(stack);
      const alice = await makeUser(stack);
      const bob = await makeUser(stack, { name: 'Bob Example' });
      const listener = runExample('chat-listen.ts', ['2'], {
        MUSE_CHAT_URL: stack.chatUrl,
        MUSE_EMAIL: alice.email,
        MUSE_API_KEY: alice.apiKey,
      });
      await listener.printed('listening');
      const sender = createChatClient({ baseUrl: stack.chatUrl, email: bob.email, apiKey: bob.apiKey });
      for (const content of ['first', 'second'])
        await sender.POST('/api/v1/messages', {
          body: { type: 'direct', to: JSON.stringify([alice.id]), content },
        });
      const { code, output } = await listener.exited();
      expect(code, output).toBe(0);
      expect(output).toMatch(/Bob Example: .*first.*\nBob Example: .*second/);
    },
  );
});
