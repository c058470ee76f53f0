import { Command, Option } from 'commander';
import type { Factory } from '../../factory.ts';
import { GENERATOR_COLUMNS, GENERATOR_KINDS, listGenerators, type GeneratorKind } from './shared.ts';

export interface ListOptions {
  kind?: GeneratorKind;
  includeInactive?: boolean;
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const kinds = options.kind ? [options.kind] : GENERATOR_KINDS;
  f.printer().list(await listGenerators(f, kinds, options.includeInactive), GENERATOR_COLUMNS);
}

export function listCommand(f: Factory): Command {
  return new Command('list')
    .description('List the active generators (administrators: --include-inactive for the disabled ones too)')
    .addOption(new Option('--kind <kind>', 'only this kind').choices(GENERATOR_KINDS))
    .option('--include-inactive', 'the disabled generators too (administrators)')
    .action((options: ListOptions) => run(options, f));
}
