/**
 * What each big library costs an API process: `node bench/libraries.ts [--runs 3]`.
 * (1) Which packages a `muse-server content-api` and `chat-api` process load by the time they are
 * ready, with the number of their files (a resolve hook records every module). (2) For each
 * library, a fresh `node` that imports it alone: its heap (V8's used heap after two full
 * collections) and its RSS, less the same of a `node` that imports nothing; the median of
 * `--runs` processes. Plain Node without the image's settings; a library's heap is the same
 * either way, its RSS is not (the image's 2 MB semi-spaces and 2 malloc arenas lower every
 * process's RSS alike).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const root = fileURLToPath(new URL('..', import.meta.url));
const at = (folder: string) => path.join(root, folder);

/** Each library, imported from the package that depends on it (so it resolves as in the process). */
const LIBRARIES: { name: string; from: string; imports: string[] }[] = [
  {
    name: 'Temporal client (@temporalio/client, its protobuf definitions)',
    from: 'packages/content-api',
    imports: ['@temporalio/client'],
  },
  { name: 'Sequelize (with pg)', from: 'packages/core', imports: ['sequelize', 'pg'] },
  { name: 'pg alone', from: 'packages/core', imports: ['pg'] },
  { name: 'Express', from: 'packages/core', imports: ['express'] },
  { name: 'express-openapi-validator', from: 'packages/content-api', imports: ['express-openapi-validator'] },
  { name: 'ajv + ajv-formats', from: 'packages/core', imports: ['ajv', 'ajv-formats'] },
  { name: 'prom-client', from: 'packages/core', imports: ['prom-client'] },
  { name: 'pino', from: 'packages/core', imports: ['pino'] },
  { name: 'socket.io', from: 'packages/content-api', imports: ['socket.io'] },
  { name: 'ws', from: 'packages/content-api', imports: ['ws'] },
  { name: 'jose + fast-jwt', from: 'packages/content-api', imports: ['jose', 'fast-jwt'] },
  { name: 'yaml', from: 'packages/core', imports: ['yaml'] },
  { name: 'undici', from: 'packages/core', imports: ['undici'] },
  { name: 'busboy', from: 'packages/content-api', imports: ['busboy'] },
  { name: 'markdown-it', from: 'packages/chat-api', imports: ['markdown-it'] },
  {
    name: 'emoji data (emoji-datasource + emojibase-data cldr)',
    from: 'packages/chat-api',
    imports: ['emoji-datasource/emoji.json', 'emojibase-data/en/shortcodes/cldr.json'],
  },
  {
    name: 'OpenTelemetry tracing (sdk-trace-node + OTLP exporter)',
    from: 'packages/core',
    imports: ['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-proto'],
  },
  { name: 'ioredis', from: 'packages/core', imports: ['ioredis'] },
  { name: 'umzug', from: 'packages/core', imports: ['umzug'] },
  { name: 'alipay-sdk', from: 'packages/content-api', imports: ['alipay-sdk'] },
  {
    name: '@muse/content-api (all it imports, from sources)',
    from: 'packages/server',
    imports: ['@muse/content-api'],
  },
  {
    name: '@muse/chat-api (all it imports, from sources)',
    from: 'packages/server',
    imports: ['@muse/chat-api'],
  },
];

/** Heap and RSS of a fresh node after importing `imports` (nothing: the baseline) and two full collections. */
function footprint(from: string, imports: string[]): { heap: number; rss: number } {
  // JSON files come through require (as the chat API loads its emoji data), modules through import().
  const code = `
    import { createRequire } from 'node:module';
    const require = createRequire(process.cwd() + '/');
    for (const spec of ${JSON.stringify(imports)}) spec.endsWith('.json') ? require(spec) : await import(spec);
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc(); gc();
    const { heapUsed, rss } = process.memoryUsage();
    console.log(JSON.stringify({ heap: heapUsed, rss }));`;
  const result = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', code], {
    cwd: at(from),
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error(`importing ${imports.join(', ')}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { heap: number; rss: number };
}

const median = (numbers: number[]) => numbers.sort((a, b) => a - b)[Math.floor(numbers.length / 2)]!;
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

function cost(from: string, imports: string[]) {
  const heaps: number[] = [];
  const rsses: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const base = footprint(from, []);
    const loaded = footprint(from, imports);
    heaps.push(loaded.heap - base.heap);
    rsses.push(loaded.rss - base.rss);
  }
  return { heap: median(heaps), rss: median(rsses) };
}

/**
 * The packages a `muse-server <command>` process has loaded once it listens: a resolve hook
 * (module.registerHooks, given by --import as a data: URL) records each resolved file and writes
 * the list to a file every half second; read two seconds after the port opens.
 */
async function loadedPackages(command: 'content-api' | 'chat-api'): Promise<Map<string, number>> {
  const { freePort, startBenchStack, startProcess } = await import('./lib.ts');
  const hook = `
    import { registerHooks } from 'node:module';
    import { writeFileSync } from 'node:fs';
    const files = new Set();
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); files.add(r.url); return r; } });
    setInterval(() => writeFileSync(process.env.BENCH_LOADED_FILE, JSON.stringify([...files])), 500).unref();`;
  const stack = await startBenchStack();
  const port = await freePort();
  const variable = command === 'content-api' ? 'MUSE_CONTENT_PORT' : 'MUSE_CHAT_PORT';
  const file = path.join(stack.workDir, `loaded-${command}.json`);
  const started = await startProcess(
    [`--import=data:text/javascript,${encodeURIComponent(hook)}`, at('packages/server/src/main.ts'), command],
    { ...stack.serverEnv, [variable]: String(port), MUSE_DATA_DIR: stack.workDir, BENCH_LOADED_FILE: file },
    port,
  );
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const files = JSON.parse(readFileSync(file, 'utf8')) as string[];
  await started.stop();
  await stack.stop();
  const packages = new Map<string, number>();
  for (const url of files) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    const name = match ? match[1]! : url.startsWith('node:') ? undefined : '(Muse sources)';
    if (name) packages.set(name, (packages.get(name) ?? 0) + 1);
  }
  return packages;
}

console.log(
  `\nLibrary costs: a fresh node importing each alone, heap used and RSS after two full collections, less a node importing nothing; median of ${RUNS} (${os.cpus().length} cores, Node ${process.version})\n`,
);
const rows = LIBRARIES.map(({ name, from, imports }) => {
  const { heap, rss } = cost(from, imports);
  console.log(`${name.padEnd(66)} heap ${mb(heap).padStart(6)} MB  RSS ${mb(rss).padStart(6)} MB`);
  return { name, heap, rss };
});

for (const command of ['content-api', 'chat-api'] as const) {
  const packages = await loadedPackages(command);
  const listed = [...packages].sort((a, b) => b[1] - a[1]);
  console.log(`\n${command} loads ${listed.length} packages once ready (files resolved):`);
  console.log(listed.map(([name, files]) => `${name} ${files}`).join(', '));
  const absent = rows.filter(
    ({ name }) =>
      !name.startsWith('@muse') &&
      !LIBRARIES.find((l) => l.name === name)!.imports.some((spec) =>
        packages.has(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
      ),
  );
  console.log(
    `of the libraries above, not loaded by ${command}: ${absent.map(({ name }) => name).join('; ') || 'none'}`,
  );
}
process.exit(0);
