import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { TestStack } from './stack.ts';

const mainPath = fileURLToPath(new URL('../../packages/server/src/main.ts', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  /** The first match of the readiness pattern in the process's output. */
  ready: RegExpExecArray;
  /** SIGKILL: no shutdown of any kind, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

const ready: Record<'worker' | 'chat-api', RegExp> = {
  worker: /worker running/,
  'chat-api': /"url":"(http:\/\/[^"]+)"/,
};

/**
 * A real `muse-server <command>` process on the stack's database, Temporal and task queue;
 * resolves once its log says it is ready.
 */
export async function startServerProcess(
  stack: TestStack,
  command: 'worker' | 'chat-api',
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [mainPath, command], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      MUSE_DATA_DIR: stack.config.MUSE_DATA_DIR,
      MUSE_JWT_SECRET: stack.config.MUSE_JWT_SECRET,
      MUSE_HOST: '127.0.0.1',
      MUSE_CHAT_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = ready[command].exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output}`)));
  });
  const exit = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };
  return { child, ready: match, kill: () => exit('SIGKILL'), stop: () => exit('SIGTERM') };
}
