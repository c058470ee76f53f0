import { spawn, type ChildProcess } from 'node:child_process';
import { stopChild, type Logger } from '@muse/core';

/** The first restart waits this long; each quick crash doubles it, up to the maximum. */
export const RESTART_BASE_MS = 1000;
export const RESTART_MAX_MS = 30_000;
/** A child that ran this long before exiting was healthy: its next restart waits the base again. */
const HEALTHY_RUN_MS = 60_000;

export interface SupervisedService {
  /** Stops the child (and any pending restart); it is not restarted afterwards. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Runs `muse-server <name>` as a child and restarts it with back-off whenever it exits, until
 * `stop`: one service that dies (a crash, an out-of-memory kill) does not stop the platform.
 * Each restart is said on the console beside the banner and in the log.
 */
export function superviseService(
  name: string,
  command: { execPath: string; args: string[]; env: NodeJS.ProcessEnv },
  logger: Logger,
  /** True once the whole platform is stopping (Ctrl-C reaches the children too): no restart then. */
  platformStopping: () => boolean,
): SupervisedService {
  let child: ChildProcess;
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  /** Restarts in a row, each after a short run; a healthy run starts the count again. */
  let restarts = 0;

  const start = () => {
    const startedAt = Date.now();
    // The IPC channel lets a child notice when this supervisor is gone, however it ended (see main.ts).
    child = spawn(command.execPath, command.args, {
      env: command.env,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    child.once('exit', (code, signal) => {
      if (stopping || platformStopping()) return;
      restarts = Date.now() - startedAt >= HEALTHY_RUN_MS ? 1 : restarts + 1;
      const delayMs = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (restarts - 1));
      const how = signal ?? `code ${code}`;
      logger.error({ code, signal, delayMs, restart: restarts }, `${name} exited; restarting it`);
      console.log(
        `  ${name} exited (${how}); restarting it in ${delayMs / 1000} s (restart ${restarts})`,
      );
      restart = setTimeout(start, delayMs);
    });
  };
  start();

  return {
    async stop(graceMs) {
      stopping = true;
      clearTimeout(restart);
      await stopChild(child, graceMs);
    },
  };
}
