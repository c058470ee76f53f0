import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench`: runs every benchmark in this folder, one process each, platform first.
 * `npm run bench -- resources` runs only the named ones. Each prints how long it took; the run
 * fails (non-zero) when a bench fails or a name is unknown, never because a target is missed.
 */
const folder = fileURLToPath(new URL('.', import.meta.url));
/** Support files (shared code, the bare baselines' servers, the profile summary), not benches. */
const support = new Set([
  'run.ts',
  'lib.ts',
  'chat-client.ts',
  'bare.ts',
  'profile-summary.ts',
  'sizing-guide.ts',
]);
const all = readdirSync(folder)
  .filter((file) => file.endsWith('.ts') && !support.has(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort((a, b) => (a === 'platform' ? -1 : b === 'platform' ? 1 : a.localeCompare(b)));
const named = process.argv.slice(2);
const unknown = named.filter((name) => !all.includes(name));
if (unknown.length) {
  console.error(`unknown bench: ${unknown.join(', ')} (there are: ${all.join(', ')})`);
  process.exit(2);
}
const chosen = named.length ? named : all;

/**
 * What the longest benches get here, so that the whole run ends in about ten minutes on two quiet
 * cores; `node bench/<name>.ts` alone runs its longer defaults (the 5-minute soak, 10,000 members,
 * 20,000 attempts, 1,000 submits, 200 searches).
 */
const SUITE_ARGS: Record<string, string[]> = {
  memory: ['--seconds', '120'],
  'fanout-scale': ['--sizes', '10,100,1000', '--messages', '10'],
  'socket-flood': ['--attempts', '5000'],
  generation: ['400'],
  'burst-delivery': ['--generations', '300', '--messages', '10', '--upstream-seconds', '60'],
  // The million messages stay (the issue's size); fewer searches of each kind.
  search: ['--requests', '20'],
};

const failed: string[] = [];
const started = performance.now();
for (const name of chosen) {
  console.log(`\n=== bench: ${name}`);
  const began = performance.now();
  const args = [`${folder}${name}.ts`, ...(SUITE_ARGS[name] ?? [])];
  console.log(`=== node bench/${name}.ts ${(SUITE_ARGS[name] ?? []).join(' ')}`);
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  const seconds = ((performance.now() - began) / 1000).toFixed(0);
  const outcome = result.status === 0 ? 'ok' : `FAILED (${result.signal ?? `exit ${result.status}`})`;
  console.log(`=== bench: ${name}: ${outcome} in ${seconds} s`);
  if (result.status !== 0) failed.push(name);
}
console.log(
  `\n${chosen.length} benches in ${((performance.now() - started) / 1000).toFixed(0)} s` +
    (failed.length ? `; failed: ${failed.join(', ')}` : ''),
);
process.exit(failed.length ? 1 : 0);
