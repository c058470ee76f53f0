// The newcomer's walk: every command of the fenced `sh` blocks of README.md, cli/README.md and
// sdk/README.md, run in order from the checkout with the Node on PATH (Node 20 under
// .ci/newcomer.sh) against a stack started as `npx muse-server dev` on free ports. The READMEs'
// placeholders are filled from what came before (the login code from the server log, the token,
// a file id, an API key) and their addresses pointed at the walk's ports. A command that cannot run
// unattended is skipped with the reason and where it is tested instead; any other that fails
// fails the walk. Plain JavaScript: Node 20 runs it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(os.tmpdir(), 'muse-newcomer-'));
const PHONE = '13800138000';

/** Commands that cannot run unattended, and where what they do is tested instead. */
const SKIPPED = [
  [/^npm ci && npm (start|test)\b/, 'the walk starts the stack as npm start does; npm test is CI itself'],
  [/^npm install -g /, 'installs globally: cli/test/install.test.ts installs into a prefix'],
  [/^npm install \.\/muse-sdk/, 'the packed tarballs: .ci/packages.sh installs them on Node 20 and 24'],
  [/^TOKEN=/, 'the walk keeps the token the line before answered'],
  [
    /^npx muse auth login(?!.*--with-token)/,
    'asks for the code at a prompt: cli/test/commands.test.ts types it',
  ],
  [/^npx muse credits buy /, 'waits for a payment: cli/test/payments.test.ts pays one'],
  [/^npx muse payments refund ID\b/, 'needs a paid payment: cli/test/payments.test.ts refunds one'],
  [
    /^source </,
    'needs muse on PATH (npm install -g ./cli): cli/test/completion.test.ts runs the script in bash',
  ],
];

function commandsOf(readme) {
  const text = readFileSync(path.join(root, readme), 'utf8');
  const commands = [];
  for (const [, block] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let pending = '';
    for (const raw of block.split('\n')) {
      const line = raw
        .replace(/\s{2,}#.*$/, '')
        .replace(/^#.*$/, '')
        .trimEnd();
      if (line.endsWith('\\')) {
        pending += `${line.slice(0, -1).trim()} `;
        continue;
      }
      const command = (pending + line.trim()).trim();
      pending = '';
      if (command) commands.push({ readme, command });
    }
  }
  return commands;
}

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const [content, chat] = [await freePort(), await freePort()];
const env = {
  ...process.env,
  MUSE_DATA_DIR: path.join(work, 'data'),
  MUSE_HOST: '127.0.0.1',
  MUSE_CONTENT_PORT: String(content),
  MUSE_CHAT_PORT: String(chat),
  MUSE_TEMPORAL_UI_PORT: '0',
  MUSE_CONTENT_METRICS_PORT: String(await freePort()),
  MUSE_CHAT_METRICS_PORT: String(await freePort()),
  MUSE_WORKER_METRICS_PORT: String(await freePort()),
  XDG_CONFIG_HOME: path.join(work, 'config'),
  LOG_LEVEL: 'info',
};
const contentUrl = `http://127.0.0.1:${content}`;
const chatUrl = `http://127.0.0.1:${chat}`;

let log = '';
const stack = spawn(process.execPath, [path.join(root, 'packages/server/bin/muse-server.mjs'), 'dev'], {
  cwd: root,
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
stack.stdout.on('data', (chunk) => (log += chunk));
stack.stderr.on('data', (chunk) => (log += chunk));
const stop = () => stack.exitCode === null && stack.kill('SIGTERM');
process.on('exit', stop);

async function until(check, what, seconds = 300) {
  for (let i = 0; i < seconds * 2; i++) {
    if (await check()) return;
    if (stack.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.error(`newcomer walk: ${what} did not happen\n${log.slice(-4000)}`);
  process.exit(1);
}
const ready = (url) =>
  fetch(`${url}/readyz`).then(
    (answer) => answer.ok,
    () => false,
  );
await until(async () => (await ready(contentUrl)) && (await ready(chatUrl)), 'the stack becoming ready');

// What later lines need: the token, a file id, an API key.
const filled = { TOKEN: '', file_id: '', api_key: '' };
const codeInLog = () =>
  [...log.matchAll(new RegExp(`verification code for ${PHONE}: (\\d+)`, 'g'))].at(-1)?.[1];
writeFileSync(path.join(root, 'aliyun-secret.txt'), 'walk-secret\n');
writeFileSync(path.join(root, 'openai-key.txt'), 'sk-walk\n');
const hasJq = spawnSync('jq', ['--version']).status === 0;

let failed = 0;
const ran = new Set();
try {
  for (const { readme, command } of ['README.md', 'cli/README.md', 'sdk/README.md'].flatMap(commandsOf)) {
    // The READMEs share some lines (the administrator's first commands): each runs once.
    if (ran.has(command)) {
      console.log(`same  ${readme}: ${command} (ran above)`);
      continue;
    }
    ran.add(command);
    const skip =
      SKIPPED.find(([pattern]) => pattern.test(command)) ??
      (!hasJq && command.includes('| jq') ? [null, 'jq is not installed'] : undefined);
    if (skip) {
      console.log(`skip  ${readme}: ${command}\n      (${skip[1]})`);
      continue;
    }
    if (command.includes('<code>'))
      await until(() => codeInLog() !== undefined, 'a login code in the server log', 30);
    const run = command
      .replaceAll('http://127.0.0.1:8080', contentUrl)
      .replaceAll('http://127.0.0.1:8081', chatUrl)
      .replaceAll('<code>', codeInLog() ?? '')
      .replaceAll('<file_id>', filled.file_id)
      .replaceAll('<api_key>', filled.api_key);
    // The administrator the CLI block starts from (README: "after `admin grant` above").
    if (command.startsWith('npx muse auth login --with-token'))
      execute('npx muse-server admin grant --phone 13800138000');
    const output = execute(run, `${readme}: ${command}`);
    if (output === null) {
      failed++;
      continue;
    }
    const json = (() => {
      try {
        return JSON.parse(output);
      } catch {
        return undefined;
      }
    })();
    // curl exits 0 on any HTTP answer: an error body of either API fails the line too.
    if (json && ((json.code && json.message && !json.id) || json.result === 'error')) {
      console.log(`FAIL  the API answered an error: ${output}`);
      failed++;
      continue;
    }
    if (json?.token) filled.TOKEN = json.token;
    if (json?.file_ids) filled.file_id = json.file_ids[0];
    if (json?.api_key) filled.api_key = json.api_key;
  }
} finally {
  for (const file of ['aliyun-secret.txt', 'openai-key.txt', 'out'])
    rmSync(path.join(root, file), { recursive: true, force: true });
  stop();
}

/** Runs one line in bash from the checkout; answers its stdout, or null when it failed. */
function execute(command, shown = command) {
  const result = spawnSync('bash', ['-c', command], {
    cwd: root,
    env: { ...env, TOKEN: filled.TOKEN },
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (result.status === 0) {
    console.log(`ok    ${shown}`);
    return result.stdout;
  }
  console.log(`FAIL  ${shown} (exit ${result.status})\n${result.stdout}${result.stderr}`);
  return null;
}

await new Promise((resolve) => (stack.exitCode === null ? stack.on('exit', resolve) : resolve()));
rmSync(work, { recursive: true, force: true });
if (failed) {
  console.error(`newcomer walk: ${failed} command(s) failed`);
  process.exit(1);
}
console.log(`newcomer walk: every README command ran on Node ${process.version}`);
