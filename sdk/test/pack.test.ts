import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { createTestUser } from '@muse/test-support/content';
import { addWebhookProvider } from '@muse/test-support/login';
import type { CodeReceiver } from '@muse/test-support/fakes/code-receivers';
import { until } from './support.ts';

const sdk = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

/** The README's first TypeScript block: the quick start. */
async function quickStart(): Promise<string> {
  const readme = await readFile(path.join(sdk, 'README.md'), 'utf8');
  const block = /## Quick start\s+```ts\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no quick start block');
  return block[1]!;
}

describe('@muse/sdk as published: npm pack, installed into an empty project, README quick start', () => {
  let stack: TestStack;
  let receiver: CodeReceiver;
  let project: string;

  beforeAll(async () => {
    stack = await startTestStack();
    await stack.startWorker();
    receiver = await addWebhookProvider(stack, await createTestUser(stack, { admin: true }));
    project = await mkdtemp(path.join(os.tmpdir(), 'muse-sdk-consumer-'));
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it(
    'installs the tarball, type-checks the quick start and runs it against the stack',
    { timeout: 300_000 },
    async () => {
      run(process.execPath, ['../scripts/build.ts', 'sdk'], sdk);
      const tarball = run(
        'npm',
        ['pack', '--silent', '--pack-destination', project],
        path.join(sdk, 'dist'),
      ).trim();
      await writeFile(
        path.join(project, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      );
      const typesNode = (require('@types/node/package.json') as { version: string }).version;
      run(
        'npm',
        [
          'install',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          `./${tarball}`,
          `@types/node@${typesNode}`,
        ],
        project,
      );

      const installed = path.join(project, 'node_modules', '@muse', 'sdk');
      const files = await readdir(installed, { recursive: true });
      expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'package.json', 'README.md']));
      expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
      expect(existsSync(path.join(installed, 'src'))).toBe(false);

      await writeFile(path.join(project, 'quickstart.ts'), await quickStart());
      await writeFile(
        path.join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'es2022',
            module: 'nodenext',
            strict: true,
            noEmit: true,
            types: ['node'],
            // Our declarations are checked too, not only the quick start's use of them.
            skipLibCheck: false,
          },
          files: ['quickstart.ts'],
        }),
      );
      run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', project], project);

      const child = spawn(process.execPath, ['quickstart.ts'], {
        cwd: project,
        env: { ...process.env, MUSE_URL: stack.contentUrl },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      // Answer the prompt once the code has reached the (fake) SMS provider.
      await until(() => receiver.codeFor('13800138000') !== undefined);
      child.stdin.end(`${receiver.codeFor('13800138000')}\n`);
      expect(await exited, output).toBe(0);
      expect(output).toMatch(
        /completed http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\/[0-9a-f-]+\/content\?expires=/,
      );
    },
  );
});
