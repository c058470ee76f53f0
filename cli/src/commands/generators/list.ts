import { Command, Option } from 'commander';
import type { Factory } from '../../factory.ts';
import { GENERATOR_COLUMNS, GENERATOR_KINDS, activeGenerators, type GeneratorKind } from './shared.ts';

export interface ListOptions {
  kind?: GeneratorKind;
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const generators = await activeGenerators(f, options.kind ? [options.kind] : GENERATOR_KINDS);
  f.printer().list(generators, GENERATOR_COLUMNS);
}

export function listCommand(f: Factory): Command {
  return new Command('list')
    .description('List the active generators')
    .addOption(new Option('--kind <kind>', 'only this kind').choices(GENERATOR_KINDS))
    .action((options: ListOptions) => run(options, f));
}
