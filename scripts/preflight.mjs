// `npm start`, `npm test`, `npm run build`, `npm run bench` and the workspaces' scripts run through this:
// `node scripts/preflight.mjs <command…>`.
// It gets what the command needs — Node 24 (fetched from the npm registry when this Node is older),
// the Temporal CLI, and for the tests the Kubernetes tools and the trace test's OTLP receiver (built in
// the background while the tests run) — then runs the command under Node 24.
// npm starts it with whatever Node is installed, so it is plain JavaScript that Node 20 runs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { node24Directory, runAndExit } from './node24.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [command, ...args] = process.argv.slice(2);
const event = process.env.npm_lifecycle_event || 'start';
const shown = event === 'start' || event === 'test' ? `npm ${event}` : `npm run ${event}`;

if (!command) {
  console.error('usage: node scripts/preflight.mjs <command> [arguments…]');
  process.exit(2);
}

const nodeBin = node24Directory(shown);
const env = { ...process.env, PATH: `${nodeBin}${path.delimiter}${process.env.PATH || ''}` };
// The tests, `npm start` and the benchmarks run a Temporal dev server unless they are given one.
const needsTemporal = ['start', 'test', 'bench'].includes(event);
if (needsTemporal && !process.env[event === 'test' ? 'MUSE_TEST_TEMPORAL_ADDRESS' : 'TEMPORAL_ADDRESS']) {
  runOrExit('bash', [path.join(here, 'install-temporal-cli.sh')]);
}
if (event === 'test') buildToolsInBackground();
runAndExit(command, args, env);

/**
 * kube-apiserver, etcd and helm (the chart and operator tests) and the trace test's OTLP receiver, a
 * minimal OpenTelemetry Collector: built once from Go, then cached by version. On a fresh machine the
 * build (about 15 minutes on two cores) runs niced in the background while the tests run; the files
 * that need the tools run last and wait for it (MUSE_TOOLS_BUILD_PID, see test/support/tools.ts).
 */
function buildToolsInBackground() {
  const k8s = path.join(here, '..', 'tools', 'k8s', 'build.sh');
  const otelcol = path.join(here, '..', 'tools', 'otelcol', 'build.sh');
  const k8sDir = spawnSync('bash', [k8s, '--dir'], { encoding: 'utf8' }).stdout.trim();
  const collector = spawnSync('bash', [otelcol, '--path'], { encoding: 'utf8' }).stdout.trim();
  const missing = [];
  if (!['kube-apiserver', 'etcd', 'helm'].every((name) => existsSync(path.join(k8sDir, name))))
    missing.push({ script: k8s, names: 'kube-apiserver, etcd and helm (the chart and operator tests)' });
  if (!existsSync(collector))
    missing.push({ script: otelcol, names: 'the OpenTelemetry Collector (the trace test)' });
  if (missing.length === 0) return;

  const log = path.join(os.tmpdir(), `muse-tools-build-${process.pid}.log`);
  console.error(
    `building ${missing.map(({ names }) => names).join(' and ')} in the background, once (needs Go, about 15 minutes on two cores; log: ${log}); the tests that need them run last and wait for them`,
  );
  const output = openSync(log, 'w');
  // Its own process group, so that stopping it stops the `go build` under it too.
  const build = spawn(
    'nice',
    [
      '-n',
      '19',
      'bash',
      '-c',
      'status=0; for script; do bash "$script" >/dev/null || status=1; done; exit $status',
      'build',
      ...missing.map(({ script }) => script),
    ],
    { stdio: ['ignore', output, output], detached: true },
  );
  env.MUSE_TOOLS_BUILD_PID = String(build.pid);
  let running = true;
  build.on('exit', (code) => {
    running = false;
    if (code !== 0)
      console.error(
        `the Go tools could not be built (see ${log}): the tests that need them fail until they are`,
      );
  });
  // A run that ends first (a few files, or Ctrl-C) stops the build; Go's cache keeps what it compiled.
  const stop = () => {
    if (running) process.kill(-build.pid, 'SIGTERM');
  };
  process.on('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop);
}

function runOrExit(file, argv) {
  const result = spawnSync(file, argv, { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
