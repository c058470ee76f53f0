// `npm start`, `npm test` and `npm run bench` run through this: `node scripts/preflight.mjs <command…>`.
// It gets what the command needs — Node 24 (fetched from the npm registry when this Node is older),
// the Temporal CLI, and for the tests the Kubernetes tools and the trace test's OTLP receiver — then
// runs the command under Node 24.
// npm starts it with whatever Node is installed, so it is plain JavaScript that Node 20 runs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_MAJOR = 24;
const tools = process.env.MUSE_TOOLS_DIR || path.join(os.homedir(), '.cache', 'muse-bin');
const here = path.dirname(fileURLToPath(import.meta.url));
const [command, ...args] = process.argv.slice(2);
const event = process.env.npm_lifecycle_event || 'start';
const shown = event === 'start' || event === 'test' ? `npm ${event}` : `npm run ${event}`;

if (!command) {
  console.error('usage: node scripts/preflight.mjs <command> [arguments…]');
  process.exit(2);
}

const nodeBin = nodeDirectory();
const env = { ...process.env, PATH: `${nodeBin}${path.delimiter}${process.env.PATH || ''}` };
// The tests and `npm start` run a Temporal dev server unless they are given one.
if (!process.env[event === 'test' ? 'MUSE_TEST_TEMPORAL_ADDRESS' : 'TEMPORAL_ADDRESS']) {
  runOrExit('bash', [path.join(here, 'install-temporal-cli.sh')]);
}
if (event === 'test') {
  kubernetesTools();
  otlpReceiver();
}
run(command, args);

/** The folder of a Node 24 binary: this one's, else the registry's build, fetched once into the tools cache. */
function nodeDirectory() {
  if (Number(process.versions.node.split('.')[0]) >= NODE_MAJOR) return path.dirname(process.execPath);
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const pkg = `node-${platform}-${process.arch}`;
  const prefix = path.join(tools, `node${NODE_MAJOR}`);
  const bin = path.join(prefix, 'node_modules', pkg, 'bin');
  const fetched = existsSync(path.join(bin, 'node'));
  console.error(
    `Muse needs Node.js ${NODE_MAJOR} and this is ${process.version}: ` +
      (fetched
        ? `running ${shown} under the Node ${NODE_MAJOR} in ${prefix}`
        : `fetching ${pkg}@${NODE_MAJOR} from the npm registry into ${prefix}, then running ${shown} under it`),
  );
  if (!fetched) {
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
    const install = spawnSync(
      npm[0],
      [
        ...npm.slice(1),
        'install',
        '--prefix',
        prefix,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `${pkg}@${NODE_MAJOR}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (install.status !== 0 || !existsSync(path.join(bin, 'node'))) {
      console.error(
        `Could not fetch ${pkg}@${NODE_MAJOR}: install Node.js ${NODE_MAJOR} LTS yourself (nodejs.org, or \`nvm install ${NODE_MAJOR}\`) and run ${shown} again.`,
      );
      process.exit(1);
    }
  }
  return bin;
}

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

/** Runs the command as if npm had, and ends as it ends; Ctrl-C reaches it through the terminal. */
function run(file, argv) {
  const child = spawn(file, argv, { stdio: 'inherit', env });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', () => {}); // the terminal sends it to the child too: wait for the child to end
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  child.on('error', (error) => {
    console.error(`${file}: ${error.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}
