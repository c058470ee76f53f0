/**
 * Memory of the two API processes: resident memory (VmRSS) of `muse-server content-api` and
 * `muse-server chat-api`, each in its own process on one embedded Postgres and Temporal dev server,
 * idle and then under a steady mixed load for `--seconds` (default 300: the 5-minute soak),
 * sampled every 5 s. Next to them, a bare node:http process under the same kind of load is the
 * floor. Growth is the last minute's mean against the second minute's (after warm-up), which shows
 * a leak as a steady climb rather than as the first allocations.
 *
 * Each `--as` is one way of running the processes, measured one after the other on the same stack:
 *   sources   the TypeScript sources through Node's type stripping (development; the image before issue 30)
 *   compiled  the build's JavaScript under the `compiled` export condition, no other setting
 *   image     as the image runs: compiled, with the memory settings of the Dockerfile's last stage
 *             (its NODE_OPTIONS and MALLOC_ARENA_MAX, read from the file)
 * The default is `--as sources --as image`: before and after, with the change of each figure. The
 * compiled ways build the server packages first (scripts/build.ts).
 *
 * "idle MB" is RSS a few seconds after start-up and one request; "loaded MB" is the mean RSS over
 * the load, "peak MB" its highest sample. "own" is the process's anonymous memory (RssAnon): RSS
 * less the pages of the node binary and libraries that every Node process on the host shares.
 * "ready s" is the time from spawning a process to its first 200 from /readyz.
 *
 *   node bench/memory.ts [--seconds 300] [--connections 10] [--server-heap-mb N] [--as WAY ...] [--no-build]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { QueryTypes } from 'sequelize';
import { createTokenSigner } from '@muse/content-api';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { freePort, ownMemoryBytes, rssBytes, startBenchStack, startProcess } from './lib.ts';

const WAYS = ['sources', 'compiled', 'image'] as const;
type Way = (typeof WAYS)[number];

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    connections: { type: 'string', default: '10' },
    // A container's memory limit caps V8's heap (Node sizes it from the cgroup); this imitates one.
    'server-heap-mb': { type: 'string' },
    as: { type: 'string', multiple: true, default: ['sources', 'image'] },
    // The compiled ways build first; --no-build when dist/ is current.
    'no-build': { type: 'boolean', default: false },
  },
});
const ways = values.as as Way[];
const unknownWay = ways.find((way) => !WAYS.includes(way));
if (unknownWay) throw new Error(`--as ${unknownWay}: one of ${WAYS.join(', ')}`);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const TARGET_MB = 150;
/** Issue 30's target under load: 30 % less than the first way measured (before). */
const TARGET_LOADED_RATIO = 0.7;
const SAMPLE_MS = 5000;
const IDLE_SETTLE_MS = 5000;

const fromRoot = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url));
const heapFlags = values['server-heap-mb'] ? [`--max-old-space-size=${values['server-heap-mb']}`] : [];

/** The memory settings the image runs with: the variables its last stage sets. */
function imageEnvironment(): Record<string, string> {
  const dockerfile = readFileSync(fromRoot('Dockerfile'), 'utf8');
  const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const name of ['NODE_OPTIONS', 'MALLOC_ARENA_MAX']) {
    const match = new RegExp(`\\b${name}=("[^"]*"|\\S+)`).exec(lastStage);
    if (match) env[name] = match[1]!.replace(/^"|"$/g, '');
  }
  return env;
}

/** How each way starts `muse-server`: Node arguments and extra environment. */
function launch(way: Way): { args: string[]; env: Record<string, string> } {
  if (way === 'sources') return { args: [...heapFlags, fromRoot('packages/server/src/main.ts')], env: {} };
  const main = fromRoot('packages/server/dist/src/main.js');
  if (way === 'compiled') return { args: [...heapFlags, '--conditions=compiled', main], env: {} };
  return { args: [...heapFlags, main], env: imageEnvironment() };
}

if (!values['no-build'] && ways.some((way) => way !== 'sources')) {
  const packages = ['core', 'sdk', 'content-api', 'chat-api', 'temporal', 'operator', 'server'];
  console.log(`building ${packages.join(', ')} (scripts/build.ts)`);
  const built = spawnSync(process.execPath, [fromRoot('scripts/build.ts'), ...packages], {
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error(`scripts/build.ts exited ${built.status}`);
}

const rssMb = (pid: number) => rssBytes(pid) / 2 ** 20;
const anonMb = (pid: number) => ownMemoryBytes(pid) / 2 ** 20;
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

interface Target {
  name: string;
  pid: number;
  url: string;
  requests: autocannon.Request[];
  headers: Record<string, string>;
  /** Spawn to the first 200 from /readyz (undefined for the bare process, which has none). */
  readyMs?: number;
  stop: () => Promise<void>;
}

interface Figures {
  process: string;
  readyS?: number;
  requestsPerSecond: number;
  errors: number;
  idleMb: number;
  loadedMb: number;
  peakMb: number;
  idleAnonMb: number;
  peakAnonMb: number;
  growthMb?: number;
}

async function serve(
  name: string,
  args: string[],
  extraEnv: Record<string, string>,
  portVariable: string,
): Promise<Omit<Target, 'requests' | 'headers'>> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const started = await startProcess(
    args,
    { ...env, ...extraEnv, [portVariable]: String(port) },
    port,
    180_000,
  );
  const url = `http://127.0.0.1:${port}`;
  let readyMs: number | undefined;
  if (portVariable !== 'PORT') {
    while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200)
      await new Promise((resolve) => setTimeout(resolve, 50));
    readyMs = performance.now() - spawnedAt;
  }
  return { name, pid: started.child.pid!, url, readyMs, stop: started.stop };
}

/** Starts the two APIs the given way (and the bare floor), loads them together, stops them. */
async function measure(way: Way): Promise<Figures[]> {
  const { args, env: wayEnv } = launch(way);
  const targets: Target[] = [];
  try {
    targets.push({
      ...(await serve('content-api', [...args, 'content-api'], wayEnv, 'MUSE_CONTENT_PORT')),
      headers: { authorization: `Bearer ${token}` },
      requests: [
        { method: 'GET', path: '/api/v1/users/me' },
        { method: 'GET', path: '/api/v1/characters?scope=public&limit=50' },
      ],
    });
    targets.push({
      ...(await serve('chat-api', [...args, 'chat-api'], wayEnv, 'MUSE_CHAT_PORT')),
      headers: { authorization: basic },
      requests: [
        { method: 'GET', path: '/api/v1/users/me' },
        { method: 'GET', path: '/api/v1/users/me/subscriptions' },
      ],
    });
    targets.push({
      ...(await serve('bare node:http', [fromRoot('bench/bare.ts'), 'health'], {}, 'PORT')),
      headers: {},
      requests: [{ method: 'GET', path: '/healthz' }],
    });

    // Idle: after start-up and one request each (lazy connections opened), with the heap settled.
    for (const target of targets)
      await fetch(`${target.url}${target.requests[0]!.path}`, { headers: target.headers });
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idle = targets.map((target) => ({ mb: rssMb(target.pid), anon: anonMb(target.pid) }));

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
      `\n${way}: ${seconds} s of load, ${connections} connections per process, RSS sampled every ${SAMPLE_MS / 1000} s`,
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

    return targets.map((target, i) => {
      const series = samples[i]!;
      const window = (from: number, to: number) =>
        series.filter((s) => s.at >= from && s.at < to).map((s) => s.mb);
      // Growth needs a second minute to compare the last one with: runs of 2 minutes or more.
      const second = window(60, 120);
      return {
        process: target.name,
        readyS: target.readyMs === undefined ? undefined : target.readyMs / 1000,
        requestsPerSecond: Math.round(results[i]!.requests.average),
        errors: results[i]!.errors + results[i]!.non2xx,
        idleMb: idle[i]!.mb,
        loadedMb: mean(series.map((s) => s.mb)),
        peakMb: Math.max(...series.map((s) => s.mb)),
        idleAnonMb: idle[i]!.anon,
        peakAnonMb: Math.max(...series.map((s) => s.anon)),
        growthMb: second.length ? mean(window(seconds - 60, seconds + 1)) - mean(second) : undefined,
      };
    });
  } finally {
    for (const target of targets) await target.stop();
  }
}

const one = (x: number) => +x.toFixed(1);
const measured: { way: Way; figures: Figures[] }[] = [];
try {
  for (const way of ways) {
    const figures = await measure(way);
    measured.push({ way, figures });
    console.table(
      figures.map((f) => ({
        process: f.process,
        'ready s': f.readyS === undefined ? '' : +f.readyS.toFixed(2),
        'req/s': f.requestsPerSecond,
        errors: f.errors,
        'idle MB': one(f.idleMb),
        'loaded MB': one(f.loadedMb),
        'peak MB': one(f.peakMb),
        'own idle / peak MB': `${f.idleAnonMb.toFixed(0)} / ${f.peakAnonMb.toFixed(0)}`,
        'growth MB (last min vs 2nd)': f.growthMb === undefined ? 'n/a' : one(f.growthMb),
      })),
    );
  }
} finally {
  await stack.stop();
}

// Each API process, way by way, against the first way measured.
const change = (after: number, before: number) =>
  `${after >= before ? '+' : ''}${(100 * (after / before - 1)).toFixed(0)} %`;
const [first, ...rest] = measured;
for (const api of ['content-api', 'chat-api']) {
  const before = first!.figures.find((f) => f.process === api)!;
  const lines = [
    `${api} (${first!.way}): idle ${one(before.idleMb)} MB, loaded ${one(before.loadedMb)} MB, peak ${one(before.peakMb)} MB, ${before.requestsPerSecond} req/s, ready ${before.readyS!.toFixed(2)} s`,
  ];
  for (const { way, figures } of rest) {
    const after = figures.find((f) => f.process === api)!;
    lines.push(
      `  ${way}: idle ${one(after.idleMb)} MB (${change(after.idleMb, before.idleMb)}; < ${TARGET_MB} MB: ${after.idleMb < TARGET_MB ? 'met' : 'not met'}), ` +
        `loaded ${one(after.loadedMb)} MB (${change(after.loadedMb, before.loadedMb)}), ` +
        `peak ${one(after.peakMb)} MB (${change(after.peakMb, before.peakMb)}; −30 %: ${after.peakMb <= TARGET_LOADED_RATIO * before.peakMb ? 'met' : 'not met'}), ` +
        `${after.requestsPerSecond} req/s (${change(after.requestsPerSecond, before.requestsPerSecond)}), ready ${after.readyS!.toFixed(2)} s`,
    );
  }
  console.log(lines.join('\n'));
}
