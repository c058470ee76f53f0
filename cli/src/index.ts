export { runCli } from './cli.ts';
export { createFactory, type Factory, type FactoryOptions } from './factory.ts';
export { ExitCode, CliError } from './errors.ts';
export type { IOStreams } from './io/streams.ts';
