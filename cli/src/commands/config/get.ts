import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode } from '../../errors.ts';

export interface GetOptions {
  key?: string;
}

/** The server's runtime configuration (server-config), or one value of it. */
export async function run(options: GetOptions, f: Factory): Promise<void> {
  const config = (await f.content().GET('/api/v1/server-config')).data as Record<string, unknown>;
  if (options.key === undefined) return f.printer().record(config);
  if (!(options.key in config)) {
    throw new CliError(`no setting "${options.key}"`, {
      exitCode: ExitCode.notFound,
      code: 'not_found',
      hint: `the settings are: ${Object.keys(config).join(', ')}`,
    });
  }
  const value = config[options.key];
  if (f.printer().format === 'table') f.printer().line(String(value));
  else f.printer().data(value);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show the runtime configuration, or one setting')
    .argument('[key]', 'one setting, e.g. default_credit_quota')
    .action((key: string | undefined) => run({ key }, f));
}
