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
    await program.parseAsync([...argv], { from: 'user' });
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
