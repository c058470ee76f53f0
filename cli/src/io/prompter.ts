import readline from 'node:readline';
import { Writable } from 'node:stream';
import { CliError, ExitCode } from '../errors.ts';
import type { IOStreams } from './streams.ts';

/** Questions asked at the terminal. Prompts go to stderr so stdout stays clean for scripts. */
export interface Prompter {
  input(question: string): Promise<string>;
  /** Like `input`, but what is typed is not echoed on a terminal. */
  secret(question: string): Promise<string>;
  close(): void;
}

/**
 * Reads answers line by line from the input. One line reader serves every question, so answers
 * piped in ahead of the questions (`printf '123456\n' | muse auth login`) are not lost between
 * prompts; on a terminal a secret is read with echo off.
 */
export function createPrompter(io: IOStreams): Prompter {
  let lines: AsyncIterator<string> | undefined;
  let reader: readline.Interface | undefined;

  const nextLine = async (question: string): Promise<string> => {
    io.stderr.write(question);
    reader ??= readline.createInterface({ input: io.stdin, terminal: false });
    lines ??= reader[Symbol.asyncIterator]();
    const next = await lines.next();
    if (next.done) {
      throw new CliError(`no answer to "${question.trim()}": the input ended`, {
        exitCode: ExitCode.usage,
        code: 'no_input',
        hint: 'run it in a terminal or pipe the answer on stdin',
      });
    }
    return next.value.trim();
  };

  const hiddenLine = (question: string): Promise<string> =>
    new Promise((resolve, reject) => {
      io.stderr.write(question);
      const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
      const hidden = readline.createInterface({ input: io.stdin, output: muted, terminal: true });
      hidden.once('line', (line) => {
        hidden.close();
        io.stderr.write('\n');
        resolve(line.trim());
      });
      hidden.once('SIGINT', () => {
        hidden.close();
        reject(new CliError('cancelled', { code: 'cancelled' }));
      });
    });

  return {
    input: nextLine,
    secret: (question) => (io.stdinIsTTY ? hiddenLine(question) : nextLine(question)),
    close: () => reader?.close(),
  };
}
