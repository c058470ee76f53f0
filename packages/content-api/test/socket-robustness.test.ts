import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { freePort } from '@muse/core';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { startMuseServer, waitUntilServing, type MuseProcess } from '../../../test/support/processes.ts';
import { rawUpgrade } from '../../../test/support/upgrade.ts';

/**
 * Upgrade requests no client should send, against a real `muse-server content-api` process: each
 * is answered (a status before the upgrade, or a close code after it) and the process stays up.
 */
describe('socket upgrades with bad input', { timeout: 180_000 }, () => {
  let stack: TestStack;
  let server: MuseProcess;
  let url: string;

  beforeAll(async () => {
    stack = await startTestStack();
    const port = await freePort();
    server = startMuseServer(['content-api'], {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      MUSE_HOST: '127.0.0.1',
      MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET!,
      MUSE_CONTENT_PORT: String(port),
    });
    url = `http://127.0.0.1:${port}`;
    await waitUntilServing(url, server);
  });
  afterAll(async () => {
    await server?.stop();
    await stack?.stop();
  });

  const stillServing = async () => {
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  };

  it('answers a truncated percent-escape in the conversation id with 404 before the upgrade, and stays up', async () => {
    const answer = await rawUpgrade(url, '/api/v1/conversations/%E0%A4%A/ws');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_found' });
    await stillServing();
    // Again, with a token that is not one: the same answer, the same process.
    expect((await rawUpgrade(url, '/api/v1/conversations/%E0%A4%A/ws?token=x')).status).toBe(404);
    await stillServing();
  });
});
