/**
 * Presence bench: a 1,000-user organization whose clients each report presence every 60 s
 * (`POST /users/me/presence` with the `last_update_id` of its previous answer, as Zulip's
 * clients do), with time compressed: a "minute" is one
 * report from every user, and the minutes run back to back, `--concurrency` reports in flight.
 * Measured: reports per second, latency, the API process's and Postgres's CPU per report, the
 * `presence` events written, and from these the share of one core a real organization's minute
 * of reports costs. Baseline in the same run: a bare node:http + `pg` process (this file with
 * `--bare`) doing the same write per report, one upsert of the reporter's row, with no auth,
 * framework or events. The servers run as processes of their own.
 *
 *   node bench/presence.ts [--users 1000] [--minutes 5] [--concurrency 20]
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { basic, form, sendOver } from './chat-client.ts';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '1000' },
    minutes: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '20' },
    bare: { type: 'boolean', default: false },
  },
});

/** The bare server's one write: what a presence report must at least do (Muse's table, Muse's index). */
const BARE_UPSERT = `INSERT INTO chat.presence AS p (user_id, realm_id, last_active_time, last_connected_time, last_update_id)
  VALUES ($1, $2, now(), now(), nextval('chat.presence_updates'))
  ON CONFLICT (user_id) DO UPDATE SET last_active_time = now(), last_connected_time = now()`;

function serveBare(port: number): void {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const realm = Number(process.env.REALM_ID);
  http
    .createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', async () => {
        const userId = Number(new URLSearchParams(body).get('user_id'));
        await pool.query(BARE_UPSERT, [userId, realm]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"result":"success","msg":""}');
      });
    })
    .listen(port, '127.0.0.1');
}

interface Target {
  name: string;
  port: number;
  pid: number;
  /** The request of user `i`'s report. */
  report(i: number): { path: string; headers: Record<string, string>; body: string };
  /** What the client keeps from its answer. */
  answered?(i: number, body: string): void;
  stop(): Promise<void>;
}

interface Row {
  target: string;
  minute: number;
  'reports/s': number;
  'p50 ms': number;
  'p99 ms': number;
  'server CPU ms/report': number;
  'Postgres CPU ms/report': number;
  'presence events': number;
  'core % of a real minute': number;
  failed: number;
}

const userCount = Number(values.users);
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

async function bench(): Promise<void> {
  const { freePort, processCpuMs, startBenchStack, startProcess } = await import('./lib.ts');
  const { createOrganization } = await import('@muse/chat-api');
  const { QueryTypes } = await import('sequelize');
  const stack = await startBenchStack();
  const subdomain = `presence${Date.now()}`;
  const realm = await createOrganization(stack.db, { subdomain, name: 'Presence' });
  // The members, in bulk (not measured).
  const users = await stack.db.query<{ id: number; delivery_email: string; api_key: string }>(
    `INSERT INTO chat.users (realm_id, delivery_email, full_name, api_key)
     SELECT :realm, 'member' || g || '@example.com', 'Member ' || g, md5(random()::text || g)
       FROM generate_series(1, :n) AS g
     RETURNING id, delivery_email, api_key`,
    { replacements: { realm: realm.id, n: userCount }, type: QueryTypes.SELECT },
  );
  // This stack's Postgres: the parent of our connection's backend, and its other children.
  const [backend] = await stack.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', {
    type: QueryTypes.SELECT,
  });
  const postmaster = parentPid(backend!.pid);
  const serverPath = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));

  async function museTarget(): Promise<Target> {
    const port = await freePort();
    const server = await startProcess(
      [serverPath, 'chat-api'],
      { ...stack.serverEnv, MUSE_CHAT_PORT: String(port), MUSE_CHAT_DEFAULT_REALM: subdomain },
      port,
      180_000,
    );
    const headers = users.map((u) => basic(u.delivery_email, u.api_key));
    // Each client sends back the last_update_id of its previous answer, as Zulip's clients do:
    // after the first report, an answer carries only what changed since.
    const lastUpdateIds = users.map(() => '-1');
    return {
      name: 'muse POST /users/me/presence',
      port,
      pid: server.child.pid!,
      report: (i) => ({
        path: '/api/v1/users/me/presence',
        headers: headers[i]!,
        body: form({
          status: 'active',
          new_user_input: 'true',
          slim_presence: 'true',
          last_update_id: lastUpdateIds[i]!,
        }),
      }),
      answered: (i, body) => {
        const id = (JSON.parse(body) as { presence_last_update_id?: number }).presence_last_update_id;
        if (id !== undefined) lastUpdateIds[i] = String(id);
      },
      stop: server.stop,
    };
  }

  async function bareTarget(): Promise<Target> {
    const port = await freePort();
    const server = await startProcess(
      [fileURLToPath(import.meta.url), '--bare'],
      { PORT: String(port), DATABASE_URL: stack.databaseUrl, REALM_ID: String(realm.id) },
      port,
    );
    return {
      name: 'bare node:http + pg, the same upsert',
      port,
      pid: server.child.pid!,
      report: (i) => ({
        path: '/presence',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ user_id: String(users[i]!.id) }),
      }),
      stop: server.stop,
    };
  }

  const postgresCpu = () => postgresCpuMs(postmaster, processCpuMs);
  const eventsWritten = async () =>
    Number(
      (
        await stack.db.query<{ n: string }>(
          "SELECT count(*) AS n FROM chat.event_log WHERE event_type = 'presence'",
          {
            type: QueryTypes.SELECT,
          },
        )
      )[0]!.n,
    );

  async function measure(target: Target): Promise<Row[]> {
    await stack.db.query('DELETE FROM chat.presence WHERE realm_id = :realm', {
      replacements: { realm: realm.id },
    });
    const rows: Row[] = [];
    for (let minute = 1; minute <= minutes; minute++) {
      const latencies: number[] = [];
      const eventsBefore = await eventsWritten();
      const cpuBefore = processCpuMs(target.pid);
      const pgBefore = postgresCpu();
      const started = performance.now();
      let next = 0;
      let failed = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < users.length) {
            const i = next++;
            const { path, headers, body } = target.report(i);
            const t0 = performance.now();
            const answer = await sendOver(agent, target.port, 'POST', path, headers, body);
            latencies.push(performance.now() - t0);
            if (answer.status !== 200) failed++;
            else target.answered?.(i, answer.body);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const at = (p: number) =>
        latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
      const serverCpuPerReport = (processCpuMs(target.pid) - cpuBefore) / users.length;
      const pgCpuPerReport = (postgresCpu() - pgBefore) / users.length;
      rows.push({
        target: target.name,
        minute,
        'reports/s': Math.round(users.length / seconds),
        'p50 ms': Number(at(50).toFixed(1)),
        'p99 ms': Number(at(99).toFixed(1)),
        'server CPU ms/report': Number(serverCpuPerReport.toFixed(2)),
        'Postgres CPU ms/report': Number(pgCpuPerReport.toFixed(2)),
        'presence events': (await eventsWritten()) - eventsBefore,
        // A real minute has users/60 reports a second: the share of one core they take.
        'core % of a real minute': Number(
          ((((serverCpuPerReport + pgCpuPerReport) * users.length) / 60_000) * 100).toFixed(2),
        ),
        failed,
      });
    }
    return rows;
  }

  const results: Row[] = [];
  for (const make of [museTarget, bareTarget]) {
    const target = await make();
    try {
      results.push(...(await measure(target)));
    } finally {
      await target.stop();
    }
  }
  console.log(
    `\npresence: ${userCount} users, each reporting once a "minute", ${minutes} minutes back to back, ${concurrency} in flight`,
  );
  console.table(results);
  const steady = (name: string) => results.filter((r) => r.target.startsWith(name) && r.minute > 1);
  const mean = (rows: Row[], key: 'reports/s') => rows.reduce((s, r) => s + r[key], 0) / rows.length;
  const ratio = mean(steady('muse'), 'reports/s') / mean(steady('bare'), 'reports/s');
  console.log(`steady state (minutes 2+): muse/bare reports per second ${ratio.toFixed(2)}x`);
  agent.destroy();
  await stack.stop();
}

function parentPid(pid: number): number {
  return Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

/** CPU (ms) of a Postgres server: its postmaster and every process it started (backends, writers), from /proc. */
function postgresCpuMs(postmaster: number, cpuOf: (pid: number) => number): number {
  let total = cpuOf(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parentPid(Number(entry)) === postmaster) total += cpuOf(Number(entry));
    } catch {
      // A process that ended between listing and reading.
    }
  }
  return total;
}

if (values.bare) serveBare(Number(process.env.PORT));
else await bench();
