/**
 * The SDK's own cost per call: the same request through @muse/sdk and through a bare fetch, one
 * after the other: over loopback HTTP to a minimal server in its own process (bare-server.ts), and
 * with a fetch that answers from memory, which leaves only the SDK's own work as the difference:
 *   node bench/sdk.ts [calls per round, default 300]
 * Rounds alternate the two so that drift of the machine hits both; the figure is the median
 * round. Target: under 0.1 ms of overhead per call.
 */
import { fileURLToPath } from 'node:url';
import { createContentClient } from '@muse/sdk';
import { freePort, startProcess } from './lib.ts';

const callsPerRound = Number(process.argv[2] ?? 300);
const rounds = 7;
const port = await freePort();
const server = await startProcess(
  [fileURLToPath(new URL('./bare-server.ts', import.meta.url))],
  { PORT: String(port) },
  port,
);
const baseUrl = `http://127.0.0.1:${port}`;
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

/** Milliseconds per call of each side, the two called alternately so drift of the machine hits both. */
async function round(bare: Call, sdk: Call): Promise<{ bare: number; sdk: number }> {
  let bareMs = 0;
  let sdkMs = 0;
  for (let i = 0; i < callsPerRound; i++) {
    let started = performance.now();
    await bare();
    bareMs += performance.now() - started;
    started = performance.now();
    await sdk();
    sdkMs += performance.now() - started;
  }
  return { bare: bareMs / callsPerRound, sdk: sdkMs / callsPerRound };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const rows = [];
for (const [transport, fetcher] of [
  ['loopback HTTP', fetch],
  ['in-memory fetch', memoryFetch as typeof fetch],
] as const) {
  for (const [request, { bare, sdk }] of Object.entries(pair(fetcher))) {
    await round(bare, sdk); // warm-up: connections, JIT
    const results = [];
    for (let i = 0; i < rounds; i++) results.push(await round(bare, sdk));
    const bareMs = median(results.map((r) => r.bare));
    const sdkMs = median(results.map((r) => r.sdk));
    rows.push({
      transport,
      request,
      'bare fetch ms/call': bareMs.toFixed(4),
      'sdk ms/call': sdkMs.toFixed(4),
      'overhead ms/call': (sdkMs - bareMs).toFixed(4),
      'sdk / bare': (sdkMs / bareMs).toFixed(3),
      'overhead < 0.1 ms': sdkMs - bareMs < 0.1 ? 'yes' : 'no',
    });
  }
}
console.log(
  `\n@muse/sdk overhead per call (${rounds} rounds of ${callsPerRound} calls each side, alternating; median round)`,
);
console.table(rows);
await server.stop();
