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

/** `muse-server dev` with these settings and nothing of the test run's own stack (dev starts its own Postgres and Temporal). */
const startDev = (settings: Record<string, string>) =>
  spawn(process.execPath, [serverMain, 'dev'], {
    env: {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|TEMPORAL_ADDRESS|MUSE_)/.test(name)),
      ),
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      MUSE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'muse-dev-')),
      ...settings,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

// `npm start` is `muse-server dev`: its banner names every address a developer needs, and each works.
// No MUSE_HOST and no metrics ports: the defaults of `npm start` (other API ports than a developer's).
const ports = { content: await freePort(), chat: await freePort(), ui: await freePort() };
const child = startDev({
  MUSE_CONTENT_PORT: String(ports.content),
  MUSE_CHAT_PORT: String(ports.chat),
  MUSE_TEMPORAL_UI_PORT: String(ports.ui),
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

  // Metrics on free ports, not the fixed 9464-9466 a second stack would fight over.
  const metrics = banner.match(
    /metrics +http:\/\/127\.0\.0\.1:(\d+)\/metrics .*messaging API :(\d+), worker :(\d+)\)/,
  );
  const metricsPorts = metrics!.slice(1).map(Number);
  for (const port of metricsPorts) {
    expect(port).not.toBeOneOf([9464, 9465, 9466]);
    await waitForStatus(`http://127.0.0.1:${port}/metrics`, 200);
  }

  // Loopback only: another local address (Linux routes all of 127/8 to lo) is refused, as any
  // other interface is, so /dev_fetch_api_key answers nobody on the network. No warning was said.
  for (const port of [ports.content, ports.chat, ...metricsPorts])
    await expect(fetch(`http://127.0.0.2:${port}/`)).rejects.toThrow();
  expect(stderr).not.toMatch(/Warning/);
}, 180_000);

it('a second stack on a taken port stops at once, naming it; MUSE_HOST opens the stack with a warning', async () => {
  const second = startDev({
    MUSE_HOST: '0.0.0.0',
    MUSE_CONTENT_PORT: String(await freePort()),
    MUSE_CHAT_PORT: String(ports.chat),
  });
  let output = '';
  second.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  second.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise((resolve) => second.once('exit', resolve));
  expect(code).toBe(1);
  const lines = output.trim().split('\n');
  expect(lines).toEqual([
    expect.stringMatching(
      /^Warning: MUSE_HOST=0\.0\.0\.0 with the development endpoints on: .*dev_fetch_api_key/,
    ),
    `Port ${ports.chat} (MUSE_CHAT_PORT) is already in use on 0.0.0.0, by another Muse perhaps: set MUSE_CHAT_PORT to a free port.`,
  ]);
}, 60_000);
