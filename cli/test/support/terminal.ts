import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createFactory, runCli, type Factory, type IOStreams } from '../../src/index.ts';

/** Captures what a stream receives, as text. */
function capture(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

export interface TerminalOptions {
  /** Whether the streams claim to be a terminal (all three). */
  tty?: boolean;
  env?: Record<string, string | undefined>;
  /** Lines typed at the prompts; the input ends after them. */
  input?: string[];
  now?: () => Date;
  /** Stands for Ctrl-C. */
  interrupt?: AbortSignal;
}

export interface Terminal {
  factory: Factory;
  stdout(): string;
  stderr(): string;
  /** Feeds one more line to stdin (for answers that depend on what happened so far). */
  type(line: string): void;
}

/** A terminal in memory: `muse` runs in process against these streams, never `process.std*`. */
export function fakeTerminal(options: TerminalOptions = {}): Terminal {
  const stdout = capture();
  const stderr = capture();
  const stdin = new PassThrough();
  for (const line of options.input ?? []) stdin.write(`${line}\n`);
  if (options.input) stdin.end();
  const io: IOStreams = {
    stdin,
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdinIsTTY: options.tty ?? false,
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    columns: 100,
  };
  const factory = createFactory({
    io,
    env: options.env ?? {},
    ...(options.now ? { now: options.now } : {}),
    ...(options.interrupt ? { interrupt: options.interrupt } : {}),
  });
  return { factory, stdout: stdout.text, stderr: stderr.text, type: (line) => stdin.write(`${line}\n`) };
}

/** A private XDG_CONFIG_HOME, so tests never read or write the real configuration. */
export function tempConfigHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'muse-cli-config-'));
}

/** Runs `muse args` in process; returns the exit code and the captured output. */
export async function muse(args: string[], options: TerminalOptions = {}) {
  const terminal = fakeTerminal(options);
  const code = await runCli(args, terminal.factory);
  return { code, stdout: terminal.stdout(), stderr: terminal.stderr() };
}
