import { CommanderError } from 'commander';
import type { Factory } from './factory.ts';
import { createProgram } from './program.ts';
import { outputFormatFromArgv, reportError, toCliError, type ErrorMapper } from './report.ts';
import { ExitCode } from './errors.ts';
import { apiErrorMappers } from './api-errors.ts';

/**
 * Runs `muse` with the user's arguments (without `node` and the script) and returns the exit
 * code: every failure is reported here, once, in the chosen format.
 */
export async function runCli(argv: readonly string[], f: Factory): Promise<number> {
  const { program, failedCommand } = createProgram(f);
  try {
    await program.parseAsync(helpAsFlag(argv), { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    // --help and --version end the parse through the same path as an error, with exit code 0.
    if (error instanceof CommanderError && error.exitCode === 0) return ExitCode.ok;
    if (error instanceof CommanderError && error.code === 'commander.help') return ExitCode.usage;
    const mappers: ErrorMapper[] = apiErrorMappers(f);
    const cliError = toCliError(error, mappers, failedCommand());
    reportError(f.io, f.globals.output === 'table' ? outputFormatFromArgv(argv) : f.globals.output, cliError);
    return cliError.exitCode;
  } finally {
    f.prompter.close();
  }
}

/** Root flags that take a value: the word after one is not a command. */
const ROOT_VALUE_FLAGS = new Set(['-o', '--output', '--profile']);

/**
 * `muse help generate image` as `muse generate image --help`: commander's own help command goes
 * one level deep only, and would print `generate`'s help.
 */
function helpAsFlag(argv: readonly string[]): string[] {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (ROOT_VALUE_FLAGS.has(word)) i++;
    else if (word === 'help') return [...argv.slice(0, i), ...argv.slice(i + 1), '--help'];
    else if (!word.startsWith('-')) break;
  }
  return [...argv];
}
