/**
 * Memory of the two API processes: resident memory (VmRSS) of `muse-server content-api` and
 * `muse-server chat-api`, each in its own process on one embedded Postgres, idle and then under a
 * steady mixed load for `--seconds` (default 300: the 5-minute soak), sampled every 5 s. Next to
 * them, a bare node:http process under the same kind of load is the floor. Growth is the
 * last minute's mean against the second minute's (after warm-up), which shows a leak as a
 * steady climb rather than as the first allocations.
 *
 * "own" is the process's anonymous memory (RssAnon): RSS less the pages of the node binary and
 * libraries that every Node process on the host shares.
 *
 * "ready s" is the time from spawning a process to its first 200 from /readyz.
 *
 *   node bench/memory.ts [--seconds 300] [--connections 10] [--server-heap-mb N] [--compiled]
 *
 * --compiled runs the APIs as the image does: the build's JavaScript (`npm run build` first) with
 * the `compiled` export condition, instead of the TypeScript sources through Node's type stripping.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { QueryTypes } from 'sequelize';
import { createTokenSigner } from '@muse/content-api';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { freePort, ownMemoryBytes, rssBytes, startBenchStack, startProcess } from './lib.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    connections: { type: 'string', default: '10' },
    // A container's memory limit caps V8's heap (Node sizes it from the cgroup); this imitates one.
    'server-heap-mb': { type: 'string' },
    compiled: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const TARGET_MB = 150;
const SAMPLE_MS = 5000;
const serverMain = values.compiled
  ? fileURLToPath(new URL('../packages/server/dist/src/main.js', import.meta.url))
  : fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));
const serverFlags = values.compiled ? ['--conditions=compiled'] : [];

const rssMb = (pid: number) => rssBytes(pid) / 2 ** 20;
const anonMb = (pid: number) => ownMemoryBytes(pid) / 2 ** 20;
const heapFlags = [
  ...serverFlags,
  ...(values['server-heap-mb'] ? [`--max-old-space-size=${values['server-heap-mb']}`] : []),
];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

// A Temporal dev server too: the processes connect to it as in production, and /readyz needs it.
const stack = await startBenchStack({ temporal: true });
const subdomain = 'memory';
const env = {
  ...stack.serverEnv,
  MUSE_CHAT_DEFAULT_REALM: subdomain,
};

// A content user with a few characters to list; a messaging organization and its owner.
const [user] = await stack.db.query<{ id: string }>(
  `INSERT INTO content.users (phone) VALUES ('13900000000') RETURNING id`,
  { type: QueryTypes.SELECT },
);
await stack.db.query(
  `INSERT INTO content.characters (owner_id, visibility, name, description, persona, tags)
     SELECT :owner, 'public', 'Character ' || n, 'memory bench', 'You are ' || n, '["bench"]'::jsonb
       FROM generate_series(1, 200) AS n`,
  { replacements: { owner: user!.id } },
);
const token = await createTokenSigner(stack.config.MUSE_JWT_SECRET!, 3600).sign({
  id: user!.id,
  isActive: true,
  isAdmin: false,
});
await createOrganization(stack.db, { subdomain, name: 'Memory' });
const owner = await createChatUser(stack.db, {
  subdomain,
  email: 'owner@memory.example',
  fullName: 'Owner',
  role: 100,
});
const basic = `Basic ${Buffer.from(`${owner.delivery_email}:${owner.api_key}`).toString('base64')}`;

interface Measured {
  name: string;
  pid: number;
  url: string;
  requests: autocannon.Request[];
  headers: Record<string, string>;
  /** Spawn to the first 200 from /readyz (undefined for the bare process, which has none). */
  readyMs?: number;
  stop: () => Promise<void>;
}

async function serve(
  name: string,
  args: string[],
  portVariable: string,
): Promise<Omit<Measured, 'requests' | 'headers'>> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const started = await startProcess(args, { ...env, [portVariable]: String(port) }, port, 180_000);
  const url = `http://127.0.0.1:${port}`;
  let readyMs: number | undefined;
  if (portVariable !== 'PORT') {
    while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200)
      await new Promise((resolve) => setTimeout(resolve, 50));
    readyMs = performance.now() - spawnedAt;
  }
  return { name, pid: started.child.pid!, url, readyMs, stop: started.stop };
}

const targets: Measured[] = [
  {
    ...(await serve('content-api', [...heapFlags, serverMain, 'content-api'], 'MUSE_CONTENT_PORT')),
    headers: { authorization: `Bearer ${token}` },
    requests: [
      { method: 'GET', path: '/api/v1/users/me' },
      { method: 'GET', path: '/api/v1/characters?scope=public&limit=50' },
    ],
  },
  {
    ...(await serve('chat-api', [...heapFlags, serverMain, 'chat-api'], 'MUSE_CHAT_PORT')),
    headers: { authorization: basic },
    requests: [
      { method: 'GET', path: '/api/v1/users/me' },
      { method: 'GET', path: '/api/v1/users/me/subscriptions' },
    ],
  },
  {
    ...(await serve(
      'bare node:http',
      [fileURLToPath(new URL('./bare.ts', import.meta.url)), 'health'],
      'PORT',
    )),
    headers: {},
    requests: [{ method: 'GET', path: '/healthz' }],
  },
];

try {
  // Idle: after start-up and one request each (lazy connections opened), with the heap settled.
  for (const target of targets)
    await fetch(`${target.url}${target.requests[0]!.path}`, { headers: target.headers });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idle = targets.map((target) => rssMb(target.pid));
  const idleAnon = targets.map((target) => anonMb(target.pid));

  const samples = targets.map(() => [] as { at: number; mb: number; anon: number }[]);
  const started = Date.now();
  const sampler = setInterval(() => {
    targets.forEach((target, i) =>
      samples[i]!.push({
        at: (Date.now() - started) / 1000,
        mb: rssMb(target.pid),
        anon: anonMb(target.pid),
      }),
    );
  }, SAMPLE_MS);
  console.log(
    `\nmemory bench (${values.compiled ? 'compiled output' : 'TypeScript sources'}): ${seconds} s of load, ${connections} connections per process, RSS sampled every ${SAMPLE_MS / 1000} s`,
  );
  const results = await Promise.all(
    targets.map((target) =>
      autocannon({
        url: target.url,
        headers: target.headers,
        requests: target.requests,
        connections,
        duration: seconds,
      }),
    ),
  );
  clearInterval(sampler);

  const rows = targets.map((target, i) => {
    const series = samples[i]!;
    const window = (from: number, to: number) =>
      series.filter((s) => s.at >= from && s.at < to).map((s) => s.mb);
    // Growth needs a second minute to compare the last one with: runs of 2 minutes or more.
    const second = window(60, 120);
    const peak = Math.max(...series.map((s) => s.mb));
    const peakAnon = Math.max(...series.map((s) => s.anon));
    return {
      process: target.name,
      'ready s': target.readyMs === undefined ? '' : +(target.readyMs / 1000).toFixed(2),
      'req/s': Math.round(results[i]!.requests.average),
      errors: results[i]!.errors + results[i]!.non2xx,
      'idle MB': +idle[i]!.toFixed(1),
      'peak MB': +peak.toFixed(1),
      'own idle / peak MB': `${idleAnon[i]!.toFixed(0)} / ${peakAnon.toFixed(0)}`,
      'growth MB (last min vs 2nd)': second.length
        ? +(mean(window(seconds - 60, seconds + 1)) - mean(second)).toFixed(1)
        : 'n/a',
      [`< ${TARGET_MB} MB`]: target.name === 'bare node:http' ? '' : peak < TARGET_MB ? 'yes' : 'no',
    };
  });
  console.table(rows);
  const bare = rows.at(-1)!;
  for (const row of rows.slice(0, -1))
    console.log(
      `${row.process}: peak RSS ${(row['peak MB'] / bare['peak MB']).toFixed(1)}× the bare process's`,
    );
} finally {
  for (const target of targets) await target.stop();
  await stack.stop();
}
