import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The background build of the Go tools that `npm test`'s preflight started on a fresh machine. */
const buildPid = Number(process.env.MUSE_TOOLS_BUILD_PID) || undefined;

/** How long the background build may take, beside the tests, when one runs (about 15 minutes on two cores). */
export const TOOLS_BUILD_WAIT_MS = buildPid ? 45 * 60_000 : 0;
/** The timeout of a hook that waits for the Go tools: the usual two minutes, plus the build's. */
export const TOOLS_HOOK_TIMEOUT_MS = 120_000 + TOOLS_BUILD_WAIT_MS;

/**
 * Returns once every one of `paths` exists or no background build of the Go tools is running (any
 * more, or at all): the caller then finds the tools, or says which one is missing.
 */
export async function afterToolsBuild(paths: string[]): Promise<void> {
  while (buildPid && isRunning(buildPid) && !paths.every((file) => existsSync(file))) await sleep(1000);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
