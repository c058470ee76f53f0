import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { freePort, stopChild } from '@muse/core';

const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));

async function waitForStatus(url: string, status: number, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answered = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (answered === status) return;
    if (Date.now() > deadline) throw new Error(`${url} answered ${answered}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// `npm start` is `muse-server dev`: its banner names every address a developer needs, and each works.
const ports = { content: await freePort(), chat: await freePort(), ui: await freePort() };
const child = spawn(process.execPath, [serverMain, 'dev'], {
  env: {
    // Nothing of the test run's own stack: dev starts its own Postgres and Temporal.
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|TEMPORAL_ADDRESS|MUSE_)/.test(name)),
    ),
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    MUSE_HOST: '127.0.0.1',
    MUSE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'muse-dev-')),
    MUSE_CONTENT_PORT: String(ports.content),
    MUSE_CHAT_PORT: String(ports.chat),
    MUSE_TEMPORAL_UI_PORT: String(ports.ui),
    MUSE_CONTENT_METRICS_PORT: String(await freePort()),
    MUSE_CHAT_METRICS_PORT: String(await freePort()),
    MUSE_WORKER_METRICS_PORT: String(await freePort()),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
afterAll(() => stopChild(child, 20_000));

it('npm start prints both APIs, the Temporal UI, Postgres and Temporal, and each answers', async () => {
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Press Ctrl-C to stop.')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`dev exited with ${code}: ${stderr}`)));
  });
  const banner = stdout.slice(stdout.indexOf('Muse is starting:'));
  // Each line: two spaces, the label padded to 14, the address.
  const lines = new Map(
    banner.split('\n').map((text) => [text.slice(2, 16).trim(), text.slice(16).split(' ')[0]]),
  );
  const line = (label: string) => lines.get(label);
  expect(line('content API')).toBe(`http://127.0.0.1:${ports.content}`);
  expect(line('messaging API')).toBe(`http://127.0.0.1:${ports.chat}`);
  expect(line('Temporal UI')).toBe(`http://127.0.0.1:${ports.ui}`);
  expect(line('Postgres')).toMatch(/^postgres:\/\/[^@]+@127\.0\.0\.1:\d+\/\w+$/);
  expect(line('Temporal')).toMatch(/^127\.0\.0\.1:\d+$/);

  const ui = await fetch(line('Temporal UI')!);
  expect(ui.status).toBe(200);
  expect(await ui.text()).toMatch(/<html/i);
  await waitForStatus(`${line('content API')}/readyz`, 200);
  await waitForStatus(`${line('messaging API')}/readyz`, 200);
}, 180_000);
