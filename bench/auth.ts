/**
 * Login and authentication throughput of the content API, on a real (embedded) Postgres:
 *   node bench/auth.ts [seconds per phase, default 5]
 * The server is a `muse-server content-api` process of its own (autocannon does not share its
 * cores' event loop). Prints codes sent/s, logins/s (first login: registration + ledger grant +
 * token), and the cost of token verification + user lookup per request (`GET /users/me` next to
 * `GET /healthz`, as a ratio), with the server's CPU time per request of each phase.
 * `BENCH_CPU_PROF=<dir>` also writes a CPU profile of the server.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createTokenSigner } from '@muse/content-api';
import { freePort, processCpuMs, rssBytes, serverNodeOptions, startBenchStack, startProcess } from './lib.ts';

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

type Run = autocannon.Result & { cpuMsPerRequest: number };

/** One phase; the server's CPU time over it is divided by the requests it answered. */
async function run(title: string, options: autocannon.Options): Promise<Run> {
  const cpuBefore = processCpuMs(pid);
  const r = await autocannon({ connections: 20, duration: seconds, ...options });
  const cpuMsPerRequest = (processCpuMs(pid) - cpuBefore) / Math.max(1, r.requests.total);
  peakRssMiB = Math.max(peakRssMiB, mib(rssBytes(pid)));
  const bad = r.non2xx + r.errors;
  console.log(
    `${title.padEnd(44)} ${r.requests.average.toFixed(0).padStart(7)} req/s   latency p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms` +
      `   server CPU ${cpuMsPerRequest.toFixed(2)} ms/req` +
      (bad ? `   (${bad} non-2xx/errors)` : ''),
  );
  return { ...r, cpuMsPerRequest };
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
const [user] = await db.query<{ id: string }>('SELECT id FROM content.users LIMIT 1', {
  type: 'SELECT' as never,
});
const token = await createTokenSigner(config.MUSE_JWT_SECRET!, 3600).sign({
  id: user!.id,
  isActive: true,
  isAdmin: false,
});
const health = await run('GET  /healthz (no auth)', { url: `${server.url}/healthz` });
const me = await run('GET  /api/v1/users/me (JWT verify + user lookup)', {
  url: `${server.url}/api/v1/users/me`,
  headers: { authorization: `Bearer ${token}` },
});
const unauthorized = await run('GET  /api/v1/users/me with a bad token (401)', {
  url: `${server.url}/api/v1/users/me`,
  headers: { authorization: `Bearer ${token}x` },
});

console.log(
  `\ncodes sent: ${codes.size}, logins: ${loginRun.requests.total - loginRun.non2xx} (of ${loginRun.requests.total})`,
);
console.log(`logins/s: ${(loginRun.requests.total / (loginRun.duration || 1)).toFixed(0)}`);
console.log(
  `token verification + user lookup (users/me vs healthz): ${me.requests.average.toFixed(0)} vs ${health.requests.average.toFixed(0)} req/s, ` +
    `ratio ${(me.requests.average / health.requests.average).toFixed(2)} (target >= 0.6), p50 +${me.latency.p50 - health.latency.p50} ms; ` +
    `a refused token costs ${unauthorized.latency.p50} ms p50`,
);
console.log(
  `server CPU per request: users/me ${me.cpuMsPerRequest.toFixed(2)} ms, healthz ${health.cpuMsPerRequest.toFixed(2)} ms, ` +
    `auth + lookup ${(me.cpuMsPerRequest - health.cpuMsPerRequest).toFixed(2)} ms (target < 1); refused token ${unauthorized.cpuMsPerRequest.toFixed(2)} ms`,
);
console.log(`server RSS: idle ${idleRssMiB} MiB, peak under load ${peakRssMiB} MiB`);

receiver.close();
await serverProcess.stop();
await stack.stop();

function mib(bytes: number): number {
  return Math.round(bytes / 1048576);
}
