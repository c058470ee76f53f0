import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { freePort } from '@muse/core';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { READY_TIMEOUT_MS } from './support/processes.ts';

const support = new URL('./support/processes.ts', import.meta.url).href;

/** Whether a process with this pid still exists. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

// A test that times out never reaches its own clean-up; what it spawned must not outlive it.
describe(
  'a muse-server started by a test process that ends without stopping it',
  { timeout: 240_000 },
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(() => database.drop());

    for (const ending of ['exits', 'is killed'] as const) {
      it(`stops when the test process ${ending}`, async () => {
        const port = await freePort();
        const env = {
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          DATABASE_URL: database.url,
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          MUSE_HOST: '127.0.0.1',
          MUSE_CONTENT_PORT: String(port),
          MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
        };
        const script = `
        const { startMuseServer, waitUntilServing } = await import(${JSON.stringify(support)});
        const server = startMuseServer(['content-api'], ${JSON.stringify(env)});
        await waitUntilServing('http://127.0.0.1:${port}', server);
        console.log('server pid', server.child.pid);
        ${ending === 'exits' ? 'process.exit(1);' : 'setInterval(() => {}, 1000);'}
      `;
        const testProcess = spawn(process.execPath, ['--input-type=module', '-e', script], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const pid = await new Promise<number>((resolve, reject) => {
          let output = '';
          testProcess.stdout!.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            const match = /server pid (\d+)/.exec(output);
            if (match) resolve(Number(match[1]));
          });
          testProcess.once('exit', () =>
            setTimeout(() => reject(new Error(`no server started: ${output}`)), 100),
          );
        });
        expect(alive(pid)).toBe(true);
        if (ending === 'is killed') testProcess.kill('SIGKILL');

        expect(await until(() => !alive(pid), READY_TIMEOUT_MS)).toBe(true);
      });
    }
  },
);
