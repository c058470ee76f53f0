import { CommanderError } from 'commander';
import { CliError, ExitCode } from './errors.ts';
import type { IOStreams } from './io/streams.ts';
import type { OutputFormat } from './io/output.ts';

/**
 * Turns anything a command threw into a `CliError`. Commander's parse errors are usage errors
 * (exit 2); the SDK's errors are mapped by the mappers given (`api-errors.ts`); anything
 * unforeseen stays exit 1 with its message, never a stack trace.
 */
export function toCliError(
  error: unknown,
  mappers: readonly ErrorMapper[] = [],
  failedCommand = 'muse',
): CliError {
  if (error instanceof CliError) return error;
  for (const mapper of mappers) {
    const mapped = mapper(error);
    if (mapped) return mapped;
  }
  if (error instanceof CommanderError) {
    return new CliError(error.message.replace(/^error: /, ''), {
      exitCode: ExitCode.usage,
      code: 'usage',
      hint: `see ${failedCommand} --help`,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(message, { code: 'error' });
}

export type ErrorMapper = (error: unknown) => CliError | undefined;

/** One line on stderr (`muse: …; run: …`), or with `-o json` one JSON object. */
export function reportError(io: IOStreams, format: OutputFormat, error: CliError): void {
  if (format === 'json') {
    const body = {
      error: {
        code: error.code,
        message: error.message,
        exit_code: error.exitCode,
        ...(error.status !== undefined ? { status: error.status } : {}),
        ...(error.requestId ? { request_id: error.requestId } : {}),
        ...(error.hint ? { hint: error.hint } : {}),
      },
    };
    io.stderr.write(`${JSON.stringify(body)}\n`);
    return;
  }
  const oneLine = error.message.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '');
  io.stderr.write(`muse: ${oneLine}${error.hint ? `; ${error.hint}` : ''}\n`);
}

/** `-o json` as the user wrote it, read before parsing so even a usage error is reported as JSON. */
export function outputFormatFromArgv(argv: readonly string[]): OutputFormat {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    const value =
      word === '-o' || word === '--output'
        ? argv[i + 1]
        : word.startsWith('--output=')
          ? word.slice('--output='.length)
          : word.startsWith('-o') && word.length > 2
            ? word.slice(2)
            : undefined;
    if (value === 'json' || value === 'yaml') return value;
  }
  return 'table';
}
