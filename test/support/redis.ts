import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from '@muse/core';

/** A real redis-server (Debian's package, installed by .ci/redis.sh) on a free port, without persistence. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void>; child: ChildProcess }> {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    const installed = spawnSync('bash', [new URL('../../.ci/redis.sh', import.meta.url).pathname], {
      stdio: 'inherit',
    });
    if (installed.status !== 0) throw new Error('redis-server is missing and could not be installed');
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  // Ready when it accepts connections.
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (child.exitCode !== null) throw new Error('redis-server exited');
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The event-bus settings a test's processes run with: none (Postgres LISTEN/NOTIFY), or, when the
 * test run itself has MUSE_EVENT_BUS=redis, a redis-server of its own. Lets a test file that
 * spans processes run on either bus (`MUSE_EVENT_BUS=redis npx vitest run <file>`).
 */
export async function eventBusFromEnvironment(): Promise<{
  env: Record<string, string>;
  stop(): Promise<void>;
}> {
  if (process.env.MUSE_EVENT_BUS !== 'redis') return { env: {}, stop: async () => {} };
  const redis = await startRedis();
  return { env: { MUSE_EVENT_BUS: 'redis', MUSE_REDIS_URL: redis.url }, stop: () => redis.stop() };
}
