// Node 24 for the checkout's commands on an older Node: the preflight (`npm start`, `npm test`,
// `npm run …`) and the bins (`npx muse`, `npx muse-server`, a `muse` installed from the checkout)
// run their TypeScript under it. Plain JavaScript, so that Node 20 runs it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_MAJOR = 24;

/** Whether this Node runs the checkout's TypeScript as it is. */
export function isNode24() {
  return Number(process.versions.node.split('.')[0]) >= NODE_MAJOR;
}

/**
 * The folder of a Node 24 binary: this one's, else the registry's build, fetched once into the tools
 * cache. `shown` names the command in the one line said on an older Node: every time, or only when
 * fetching (`quiet`: a bin's stderr belongs to its own messages).
 */
export function node24Directory(shown, { quiet = false } = {}) {
  if (isNode24()) return path.dirname(process.execPath);
  const tools = process.env.MUSE_TOOLS_DIR || path.join(os.homedir(), '.cache', 'muse-bin');
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const pkg = `node-${platform}-${process.arch}`;
  const prefix = path.join(tools, `node${NODE_MAJOR}`);
  const bin = path.join(prefix, 'node_modules', pkg, 'bin');
  const fetched = existsSync(path.join(bin, 'node'));
  if (!(quiet && fetched))
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

/** Runs a command as if the shell had, and ends as it ends; Ctrl-C reaches it through the terminal. */
export function runAndExit(file, argv, env) {
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

/**
 * A checkout's bin: imports its TypeScript entry on Node 24; on an older Node runs it under the
 * Node 24 of `node24Directory`, with the same arguments.
 */
export async function runTypeScriptBin(name, entry) {
  if (isNode24()) {
    await import(entry.href);
    return;
  }
  const node = path.join(node24Directory(name, { quiet: true }), 'node');
  runAndExit(node, [fileURLToPath(entry), ...process.argv.slice(2)], process.env);
}
