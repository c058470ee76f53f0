/**
 * The SDK's own cost per call: the same request through @muse/sdk and through a bare fetch, one
 * after the other: over loopback HTTP to a minimal server in its own process (bench/bare.ts health), and
 * with a fetch that answers from memory, which leaves only the SDK's own work as the difference:
 *   node bench/sdk.ts [calls per batch, default 200]
 * Batches of the two alternate, and each round's SDK batch is compared with its own bare batch;
 * the figures are medians over the rounds, as wall time and as this process's CPU time (which
 * other work on a busy machine disturbs less). Target: under 0.1 ms of overhead per call.
 */
import { createContentClient } from '@muse/sdk';
import { startBare } from './lib.ts';

const callsPerRound = Number(process.argv[2] ?? 200);
const rounds = 15;
const server = await startBare('health');
const baseUrl = server.url;
const token = 'bench-token';
const fileId = '11111111-1111-4111-8111-111111111111';
const character = { name: 'Ada', persona: 'a patient tutor' };

const answer = JSON.stringify({ id: fileId, status: 'completed' });
/** The network taken out: a fetch that answers at once from memory, used by both sides alike. */
const memoryFetch = async (_input: string | URL | Request, _init?: RequestInit) =>
  new Response(answer, { headers: { 'content-type': 'application/json' } });

type Call = () => Promise<unknown>;
function pair(fetcher: typeof fetch): Record<string, { bare: Call; sdk: Call }> {
  const client = createContentClient({ baseUrl, token, fetch: fetcher });
  return {
    'GET /api/v1/files/{file_id}': {
      bare: async () =>
        (
          await fetcher(`${baseUrl}/api/v1/files/${fileId}`, {
            headers: { Authorization: `Bearer ${token}` },
          })
        ).json(),
      sdk: async () =>
        (await client.GET('/api/v1/files/{file_id}', { params: { path: { file_id: fileId } } })).data,
    },
    'POST /api/v1/characters': {
      bare: async () =>
        (
          await fetcher(`${baseUrl}/api/v1/characters`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(character),
          })
        ).json(),
      sdk: async () => (await client.POST('/api/v1/characters', { body: character })).data,
    },
  };
}

interface Cost {
  wallMs: number;
  /** This process's CPU time (user + system): what the calls cost here, whatever else the machine runs. */
  cpuMs: number;
}

/** Wall and CPU milliseconds per call of a batch of sequential calls. */
async function batch(call: Call): Promise<Cost> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < callsPerRound; i++) await call();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs: wallMs / callsPerRound, cpuMs: (used.user + used.system) / 1000 / callsPerRound };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const rows = [];
for (const [transport, fetcher] of [
  ['loopback HTTP', fetch],
  ['in-memory fetch', memoryFetch as typeof fetch],
] as const) {
  for (const [request, { bare, sdk }] of Object.entries(pair(fetcher))) {
    await batch(bare); // warm-up: connections, JIT
    await batch(sdk);
    // Batches alternate; each round's SDK batch is compared with its own bare batch (paired differences).
    const results: { bare: Cost; sdk: Cost }[] = [];
    for (let i = 0; i < rounds; i++) results.push({ bare: await batch(bare), sdk: await batch(sdk) });
    const of = (pick: (cost: Cost) => number) => ({
      bare: median(results.map((r) => pick(r.bare))),
      sdk: median(results.map((r) => pick(r.sdk))),
      overhead: median(results.map((r) => pick(r.sdk) - pick(r.bare))),
    });
    const wall = of((cost) => cost.wallMs);
    const cpu = of((cost) => cost.cpuMs);
    rows.push({
      transport,
      request,
      'bare ms/call (wall | cpu)': `${wall.bare.toFixed(3)} | ${cpu.bare.toFixed(3)}`,
      'sdk ms/call (wall | cpu)': `${wall.sdk.toFixed(3)} | ${cpu.sdk.toFixed(3)}`,
      'overhead ms/call (wall | cpu)': `${wall.overhead.toFixed(3)} | ${cpu.overhead.toFixed(3)}`,
      'sdk / bare (cpu)': (cpu.sdk / cpu.bare).toFixed(2),
      'cpu overhead < 0.1 ms': cpu.overhead < 0.1 ? 'yes' : 'no',
    });
  }
}
console.log(
  `\n@muse/sdk overhead per call (${rounds} rounds of ${callsPerRound} calls each side, alternating batches; medians)`,
);
console.table(rows);
await server.stop();
