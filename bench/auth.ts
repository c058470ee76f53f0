/**
 * Login and authentication throughput of the content API, on a real (embedded) Postgres:
 *   node bench/auth.ts [seconds per phase, default 5]
 * The server is a `muse-server content-api` process of its own (autocannon does not share its
 * cores' event loop). Prints codes sent/s, logins/s (first login: registration + ledger grant +
 * token), and `GET /users/me` (token verify + account read) beside its same-work baseline, a bare
 * `node:http` + `pg` process verifying the same token with node:crypto, reading the same row
 * through a prepared statement and answering the same body (bench/bare.ts users-me; checked
 * equal before the runs), as a ratio (target 0.85, issue 43); then the same for an administrator,
 * whose answer is short (`effective: ["*"]`; target 0.7); with the CPU time per request
 * of the API, the baseline and Postgres in each phase.
 * `BENCH_CPU_PROF=<dir>` also writes a CPU profile of the server; `GET /users/me` is its last
 * phase (then only the baseline runs), so `profile-summary.ts --last 12` shows that phase; the
 * baseline is profiled too (its own last phase is the same one: `--last 6`).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { DEFAULT_PERMISSIONS, createTokenSigner } from '@muse/content-api';
import {
  freePort,
  measure,
  measuredLine,
  ratioLine,
  rssBytes,
  serverNodeOptions,
  startBare,
  startBenchStack,
  startProcess,
  type Measured,
} from './lib.ts';

const seconds = Number(process.argv[2] ?? 5);
const stack = await startBenchStack();
const { db, config } = stack;

// Codes arrive at an in-process webhook receiver; limits are raised so the bench measures work, not refusals.
const codes = new Map<string, string>();
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const { phone, code } = JSON.parse(body) as { phone: string; code: string };
    codes.set(phone, code);
    res.end('{}');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
const signingSecret = randomBytes(16).toString('hex');
await db.query(
  `INSERT INTO content.verification_code_providers (name, type, config, secrets) VALUES ('bench', 'webhook', CAST(:config AS jsonb), CAST(:secrets AS jsonb));
   UPDATE content.server_config SET settings = CAST(:settings AS jsonb)`,
  {
    replacements: {
      config: JSON.stringify({ url: receiverUrl }),
      secrets: JSON.stringify({ signing_secret: signingSecret }),
      settings: JSON.stringify({
        code_cooldown_seconds: 0,
        codes_per_phone_per_day: 1e5,
        codes_per_ip_per_day: 1e7,
        login_attempts_per_phone_per_hour: 1e5,
        login_attempts_per_ip_per_hour: 1e7,
      }),
    },
  },
);

const port = await freePort();
const serverProcess = await startProcess(
  [
    ...serverNodeOptions(),
    fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url)),
    'content-api',
  ],
  { ...stack.serverEnv, MUSE_CONTENT_PORT: String(port), MUSE_DATA_DIR: stack.workDir },
  port,
);
const server = { url: `http://127.0.0.1:${port}` };
const pid = serverProcess.child.pid!;
const idleRssMiB = mib(rssBytes(pid));
let peakRssMiB = idleRssMiB;

const phones: string[] = [];
let next = 0;
const newPhone = () =>
  `139${String(phones.push(`139${String(phones.length).padStart(8, '0')}`) - 1).padStart(8, '0')}`;

/** One phase against the content API; its CPU and Postgres's per request are printed beside it. */
async function run(title: string, options: autocannon.Options, pidOf = pid): Promise<Measured> {
  const measured = await measure(
    title,
    { connections: 20, duration: seconds, ...options },
    { [pidOf === pid ? 'API' : 'bare']: pidOf, Postgres: stack.postgresCpuMs },
  );
  if (pidOf === pid) peakRssMiB = Math.max(peakRssMiB, mib(rssBytes(pid)));
  console.log(measuredLine(measured));
  return measured;
}

console.log(
  `\nContent API auth bench (${seconds}s per phase, 20 connections, embedded Postgres, Node ${process.version})\n`,
);
await run('GET  /auth/verification-code (webhook)', {
  url: `${server.url}/api/v1/auth/verification-code`,
  requests: [
    {
      setupRequest: (req) => ({ ...req, path: `/api/v1/auth/verification-code?phone_number=${newPhone()}` }),
    },
  ],
});
await new Promise((resolve) => setTimeout(resolve, 500));
if (!codes.size) throw new Error('no verification code reached the receiver');
const loginRun = await run('POST /auth/token (first login: registers)', {
  amount: codes.size,
  url: `${server.url}/api/v1/auth/token`,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  requests: [
    {
      setupRequest: (req) => {
        const phone = phones[next++ % phones.length]!;
        return {
          ...req,
          body: JSON.stringify({ phone, verification_code: codes.get(phone), source: 'bench' }),
        };
      },
    },
  ],
});
const [user, administrator] = await db.query<{ id: string }>(
  'SELECT id FROM content.users ORDER BY id LIMIT 2',
  {
    type: 'SELECT' as never,
  },
);
// An administrator's answer is short: `effective` is `["*"]` instead of the 63 defaults.
await db.query('UPDATE content.users SET is_admin = true WHERE id = :id', {
  replacements: { id: administrator!.id },
});
const signer = createTokenSigner(config.MUSE_JWT_SECRET!, 3600);
const token = await signer.sign({ id: user!.id, isActive: true, isAdmin: false });
const adminToken = await signer.sign({ id: administrator!.id, isActive: true, isAdmin: true });
const bare = await startBare(
  'users-me',
  {
    DATABASE_URL: stack.databaseUrl,
    MUSE_JWT_SECRET: config.MUSE_JWT_SECRET!,
    DEFAULT_PERMISSIONS: JSON.stringify(DEFAULT_PERMISSIONS),
  },
  serverNodeOptions(),
);
const authorization = { authorization: `Bearer ${token}` };
const adminAuthorization = { authorization: `Bearer ${adminToken}` };
await sameAccount(`${server.url}/api/v1/users/me`, `${bare.url}/api/v1/users/me`, authorization);
await sameAccount(`${server.url}/api/v1/users/me`, `${bare.url}/api/v1/users/me`, adminAuthorization);
const health = await run('GET  /healthz (no auth)', { url: `${server.url}/healthz` });
const unauthorized = await run('GET  /api/v1/users/me with a bad token (401)', {
  url: `${server.url}/api/v1/users/me`,
  headers: { authorization: `Bearer ${token}x` },
});
// Warm-up of both (JIT, prepared statements, pool connections), then one run of each.
await run('GET  /api/v1/users/me (warm-up)', {
  url: `${server.url}/api/v1/users/me`,
  headers: authorization,
  duration: 2,
});
await run(
  'bare users/me (warm-up)',
  { url: `${bare.url}/api/v1/users/me`, headers: authorization, duration: 2 },
  bare.pid,
);
const adminMe = await run('GET  /api/v1/users/me, an administrator (short body)', {
  url: `${server.url}/api/v1/users/me`,
  headers: adminAuthorization,
});
const bareAdminMe = await run(
  'bare node:http + pg: the same, an administrator',
  { url: `${bare.url}/api/v1/users/me`, headers: adminAuthorization },
  bare.pid,
);
const me = await run('GET  /api/v1/users/me (token verify + account read)', {
  url: `${server.url}/api/v1/users/me`,
  headers: authorization,
});
const bareMe = await run(
  'bare node:http + pg: the same verify + read',
  { url: `${bare.url}/api/v1/users/me`, headers: authorization },
  bare.pid,
);

console.log(
  `\ncodes sent: ${codes.size}, logins: ${loginRun.result.requests.total - loginRun.result.non2xx} (of ${loginRun.result.requests.total})`,
);
console.log(`logins/s: ${(loginRun.result.requests.total / (loginRun.result.duration || 1)).toFixed(0)}`);
console.log(ratioLine('GET /users/me', me, bareMe, 0.85));
console.log(ratioLine('GET /users/me, an administrator', adminMe, bareAdminMe, 0.7));
console.log(
  `server CPU per request: users/me ${me.cpuMs.API!.toFixed(2)} ms (bare ${bareMe.cpuMs.bare!.toFixed(2)} ms), ` +
    `Postgres ${me.cpuMs.Postgres!.toFixed(2)} ms (bare ${bareMe.cpuMs.Postgres!.toFixed(2)} ms); ` +
    `an administrator's ${adminMe.cpuMs.API!.toFixed(2)} ms (bare ${bareAdminMe.cpuMs.bare!.toFixed(2)} ms); ` +
    `healthz ${health.cpuMs.API!.toFixed(2)} ms; refused token ${unauthorized.cpuMs.API!.toFixed(2)} ms, p50 ${unauthorized.result.latency.p50} ms`,
);
console.log(`server RSS: idle ${idleRssMiB} MiB, peak under load ${peakRssMiB} MiB`);

await bare.stop();
receiver.close();
await serverProcess.stop();
await stack.stop();

/** Both answer the same account for the token: the baseline does the same work. */
/** The baseline does the same work only if it answers the same body, byte for byte. */
async function sameAccount(ours: string, baseline: string, headers: Record<string, string>): Promise<void> {
  const [a, b] = await Promise.all([ours, baseline].map((url) => fetch(url, { headers })));
  const [bodyA, bodyB] = await Promise.all([a!.text(), b!.text()]);
  if (a!.status !== 200 || b!.status !== 200 || bodyA !== bodyB)
    throw new Error(
      `users/me answered ${a!.status} and the baseline ${b!.status}, not the same body:\n${bodyA}\n${bodyB}`,
    );
  const whose = JSON.parse(bodyA).is_admin ? "an administrator's" : "a user's";
  console.log(`users/me and its baseline answer the same ${Buffer.byteLength(bodyA)}-byte body (${whose})`);
}

function mib(bytes: number): number {
  return Math.round(bytes / 1048576);
}
