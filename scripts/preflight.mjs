// `npm start`, `npm test`, `npm run build`, `npm run bench` and the workspaces' scripts run through this:
// `node scripts/preflight.mjs <command…>`.
// It gets what the command needs — Node 24 (fetched from the npm registry when this Node is older),
// the Temporal CLI, and for the tests the Kubernetes tools and the trace test's OTLP receiver — then
// runs the command under Node 24.
// npm starts it with whatever Node is installed, so it is plain JavaScript that Node 20 runs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
if (event === 'test') {
  kubernetesTools();
  otlpReceiver();
}
runAndExit(command, args, env);

/** kube-apiserver, etcd and helm for the chart and operator tests: built once (Go), then cached by version. */
function kubernetesTools() {
  const script = path.join(here, '..', 'tools', 'k8s', 'build.sh');
  const dir = spawnSync('bash', [script, '--dir'], { encoding: 'utf8' }).stdout.trim();
  if (['kube-apiserver', 'etcd', 'helm'].every((name) => existsSync(path.join(dir, name)))) return;
  console.error(
    `building kube-apiserver, etcd and helm for the chart and operator tests into ${dir} (once: needs Go, about 10 minutes on two cores)`,
  );
  const built = spawnSync('bash', [script], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) {
    console.error(
      'the Kubernetes tools could not be built: the chart and operator tests will fail until tools/k8s/build.sh succeeds',
    );
  }
}

/** The trace test's OTLP receiver, a minimal OpenTelemetry Collector: built once (Go), then cached by version. */
function otlpReceiver() {
  const script = path.join(here, '..', 'tools', 'otelcol', 'build.sh');
  const binary = spawnSync('bash', [script, '--path'], { encoding: 'utf8' }).stdout.trim();
  if (existsSync(binary)) return;
  console.error(
    `building the OpenTelemetry Collector (OTLP receiver) for the trace test into ${path.dirname(binary)} (once: needs Go, a few minutes on two cores)`,
  );
  const built = spawnSync('bash', [script], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0)
    console.error(
      'the Collector could not be built: the trace test will fail until tools/otelcol/build.sh succeeds',
    );
}

function runOrExit(file, argv) {
  const result = spawnSync(file, argv, { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
