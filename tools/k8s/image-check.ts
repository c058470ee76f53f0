/**
 * Runs the image as the chart runs it (read-only root, uid 1000, /tmp world-writable as an
 * emptyDir) against a real Postgres and Temporal dev server on this machine: `migrate`, then the
 * content API, the messaging API and the worker, each its own container on the host network.
 * Passes when both APIs answer /readyz 200, the worker serves its metrics port (it opens it only
 * after its workflow bundle is built and it has connected to Temporal), and the API reference
 * pages (/docs of both, /docs/asyncapi of the content API) load every file they name with 200.
 * Prints the time from `docker run` to each of the first three.
 *
 *   node tools/k8s/image-check.ts muse:e2e        (DOCKER_HOST as for the build; .ci/k8s.sh runs it)
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@muse/core';
import { startLocalServices } from './local-services.ts';
import { answers200, eventually } from './poll.ts';

const run = promisify(execFile);
const image = process.argv[2];
if (!image) throw new Error('usage: node tools/k8s/image-check.ts IMAGE');
const prefix = `muse-image-check-${randomBytes(3).toString('hex')}`;
const containers: string[] = [];

async function dockerRun(name: string, env: Record<string, string>, args: string[]): Promise<void> {
  containers.push(`${prefix}-${name}`);
  const flags = ['--name', `${prefix}-${name}`, '--network', 'host', '--read-only', '--user', '1000:1000'];
  // As the chart's emptyDir: a directory of the node, root:fsGroup, world-writable without the
  // sticky bit (a tmpfs mount gets the image's sticky /tmp mode instead).
  const tmp = await mkdtemp(path.join(workDir, `${name}-tmp-`));
  await chown(tmp, 0, 1000);
  await chmod(tmp, 0o2777);
  flags.push('-v', `${tmp}:/tmp`);
  for (const [key, value] of Object.entries(env)) flags.push('-e', `${key}=${value}`);
  await run('docker', ['run', '-d', ...flags, image!, ...args]);
}

/** Seconds until `url` answers 200; fails with the container's log when it exits or times out. */
async function secondsUntil(
  name: string,
  url: string,
  started: number,
  timeoutMs = 180_000,
): Promise<number> {
  const state = await eventually(
    `${name}: ${url}`,
    async () => {
      if (await answers200(url)) return 'ready';
      const { stdout } = await run('docker', ['inspect', '-f', '{{.State.Running}}', `${prefix}-${name}`]);
      return stdout.trim() === 'true' ? undefined : 'exited';
    },
    { timeoutMs: timeoutMs - (Date.now() - started), intervalMs: 100 },
  ).catch(() => 'timed out');
  if (state === 'ready') return (Date.now() - started) / 1000;
  const logs = await run('docker', ['logs', '--tail', '40', `${prefix}-${name}`]).catch((e) => e);
  throw new Error(`${name}: ${url} did not answer 200 (${state})\n${logs.stdout ?? ''}${logs.stderr ?? ''}`);
}

/**
 * A reference page and everything it loads answer 200 from the container: the page's own
 * scripts, styles and icon (the renderers' files, served from their packages: the Dockerfile
 * prunes around them), and the documents its init script fetches. Returns how many answered.
 */
async function pageLoads(base: string, page: string): Promise<number> {
  const get = async (target: string) => {
    const answer = await fetch(new URL(target, base));
    if (answer.status !== 200) throw new Error(`${page}: ${target} answered ${answer.status}`);
    return answer.text();
  };
  const html = await get(page);
  const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]!);
  if (!assets.some((asset) => asset.endsWith('.js'))) throw new Error(`${page} loads no script`);
  const documents = new Set<string>();
  for (const asset of assets) {
    const body = await get(asset);
    // The page's init script names the document it renders: fetched itself
    // (`fetch('/asyncapi.json')`) or handed to Swagger UI (`url: '/openapi.json'`).
    if (asset.endsWith('init.js'))
      for (const match of body.matchAll(/(?:fetch\(|url: )(['"])(\/[^'"]+)\1/g)) documents.add(match[2]!);
  }
  if (!documents.size) throw new Error(`${page}: its init script fetches no document`);
  for (const document of documents) JSON.parse(await get(document));
  return 1 + assets.length + documents.size;
}

const workDir = await mkdtemp(path.join(os.tmpdir(), 'muse-image-check-'));
const stops: (() => Promise<unknown>)[] = [() => rm(workDir, { recursive: true, force: true })];
try {
  const services = await startLocalServices(workDir, 'image-check');
  stops.push(services.stop);
  const [content, chat, contentMetrics, chatMetrics, workerMetrics] = await Promise.all(
    [1, 2, 3, 4, 5].map(() => freePort()),
  );
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    MUSE_HOST: '127.0.0.1',
    DATABASE_URL: services.databaseUrl,
    TEMPORAL_ADDRESS: services.temporalAddress,
    TEMPORAL_TASK_QUEUE: prefix,
    MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
    MUSE_SECRETS_KEY: randomBytes(32).toString('base64'),
    MUSE_CONTENT_PORT: String(content),
    MUSE_CHAT_PORT: String(chat),
    MUSE_CONTENT_METRICS_PORT: String(contentMetrics),
    MUSE_CHAT_METRICS_PORT: String(chatMetrics),
    MUSE_WORKER_METRICS_PORT: String(workerMetrics),
  };
  const migrated = spawn(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'host',
      '--read-only',
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      image,
      'migrate',
    ],
    { stdio: 'inherit' },
  );
  const code = await new Promise((resolve) => migrated.once('exit', resolve));
  if (code !== 0) throw new Error(`migrate exited ${code}`);

  const started = Date.now();
  await Promise.all([
    dockerRun('content-api', env, ['content-api']),
    dockerRun('chat-api', env, ['chat-api']),
    dockerRun('worker', env, ['worker']),
  ]);
  const [contentReady, chatReady, workerReady] = await Promise.all([
    secondsUntil('content-api', `http://127.0.0.1:${content}/readyz`, started),
    secondsUntil('chat-api', `http://127.0.0.1:${chat}/readyz`, started),
    secondsUntil('worker', `http://127.0.0.1:${workerMetrics}/metrics`, started),
  ]);
  // The reference pages: both APIs' /docs, and the content API's AsyncAPI page.
  const pages = [
    [content, '/docs'],
    [content, '/docs/asyncapi'],
    [chat, '/docs'],
  ] as const;
  for (const [port, page] of pages) {
    const answered = await pageLoads(`http://127.0.0.1:${port}`, page);
    console.log(
      `image-check: ${page} on port ${port}: the page and its ${answered - 1} files and documents answer 200`,
    );
  }
  console.log(
    `image-check: docker run → content-api /readyz ${contentReady.toFixed(1)} s, chat-api /readyz ${chatReady.toFixed(1)} s, worker serving ${workerReady.toFixed(1)} s`,
  );
} finally {
  if (containers.length) await run('docker', ['rm', '-f', ...containers]).catch(() => {});
  for (const stop of stops.reverse()) await stop().catch(() => {});
}
