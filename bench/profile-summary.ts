/**
 * Where a CPU profile's time goes:
 *   node bench/profile-summary.ts <file.cpuprofile> [--top 25] [--last <seconds>] [--requests <n>]
 * (profiles from `BENCH_CPU_PROF=<dir>` or `node --cpu-prof`). Prints self time by function and
 * by package (node_modules/<name>, Node's own code, our packages), as shares of the sampled time,
 * idle and garbage collection apart; `--last` keeps only the profile's last seconds (the phase
 * measured, without start-up); `--requests` (the requests answered in that window: the bench's
 * rate times its seconds) adds each line's µs per request.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    last: { type: 'string' },
    requests: { type: 'string' },
  },
});
const file = positionals[0];
if (!file)
  throw new Error(
    'usage: node bench/profile-summary.ts <file.cpuprofile> [--top N] [--last S] [--requests N]',
  );
const requests = values.requests ? Number(values.requests) : undefined;
const top = Number(values.top);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const durationUs = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
const afterUs = values.last ? durationUs - Number(values.last) * 1e6 : 0;

// Self time per node: each sample's time delta goes to the node it landed in.
const selfUs = new Map<number, number>();
let elapsedUs = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  elapsedUs += delta;
  if (elapsedUs >= afterUs) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  total += us;
  const where = packageOf(url, functionName);
  const name = `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byPackage.set(where, (byPackage.get(where) ?? 0) + us);
}

function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  if (url.startsWith('node:')) return 'node:*';
  const ours = /\/(packages\/[^/]+|temporal|sdk|cli)\//.exec(url);
  return ours ? ours[1]! : url;
}
function shortUrl(url: string): string {
  return url.replace(/^file:\/\/.*?\/(node_modules|packages)\//, '$1/');
}
const table = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([what, us]) => ({
      what: what.slice(0, 110),
      ms: Math.round(us / 1000),
      '%': +((100 * us) / total).toFixed(1),
      ...(requests ? { 'µs/request': +(us / requests).toFixed(1) } : {}),
    }));

const idle = byPackage.get('(idle)') ?? 0;
console.log(`${file}: ${Math.round(total / 1000)} ms sampled, ${Math.round((total - idle) / 1000)} ms busy`);
if (requests) console.log(`busy per request: ${((total - idle) / requests).toFixed(1)} µs`);
console.log('\nself time by package');
console.table(table(byPackage));
console.log('\nself time by function');
console.table(table(byFunction));
