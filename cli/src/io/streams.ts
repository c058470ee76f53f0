import type { Readable, Writable } from 'node:stream';

/**
 * The terminal as commands see it. Commands never touch `process.std*`: tests hand in their own
 * streams and say whether each one is a terminal.
 */
export interface IOStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for live status lines; 80 when unknown. */
  columns: number;
}

export function processStreams(): IOStreams {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stderr.columns || 80,
  };
}

/** Colour only on a terminal, and never with NO_COLOR set (https://no-color.org) or `--no-color`. */
export function colorEnabled(
  isTTY: boolean,
  env: Record<string, string | undefined>,
  flag: boolean | undefined,
): boolean {
  if (flag === false || env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return isTTY && env.TERM !== 'dumb';
}
