import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { generatorId } from './shared.ts';

export interface GetOptions {
  generator: string;
}

/** Administrators also see `config`, `secret_names` and `parameters_schema`. */
export async function run(options: GetOptions, f: Factory): Promise<void> {
  const id = await generatorId(f, options.generator, { includeInactive: true });
  const { data } = await f
    .content()
    .GET('/api/v1/generators/{generator_id}', { params: { path: { generator_id: id } } });
  f.printer().record(data);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show a generator')
    .argument('<generator>', 'id or name')
    .action((generator: string) => run({ generator }, f));
}
