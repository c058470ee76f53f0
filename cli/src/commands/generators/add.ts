import { Command, Option } from 'commander';
import type { ContentComponents } from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { GENERATOR_KINDS, type GeneratorKind } from './shared.ts';
import { generatorFields, withGeneratorFlags, type GeneratorFlags } from './input.ts';

export interface AddOptions extends GeneratorFlags {
  name: string;
  kind: GeneratorKind;
  inactive?: boolean;
}

export async function run(options: AddOptions, f: Factory): Promise<void> {
  if (options.type === undefined || options.baseCost === undefined) {
    throw usageError('--type and --base-cost are required', 'see muse generators add --help');
  }
  const body = {
    ...(await generatorFields(options, f)),
    kind: options.kind,
    ...(options.inactive ? { is_active: false } : {}),
  } as ContentComponents['schemas']['GeneratorInput'];
  const { data } = await f.content().POST('/api/v1/generators', { body });
  f.printer().success(`Added generator ${data.name} (${data.id})`);
  f.printer().record(data);
}

export function addCommand(f: Factory): Command {
  return withGeneratorFlags(
    new Command('add')
      .description(
        'Add a generator: muse generators add --name sdxl --kind image --type openai --base-cost 2 --config base_url=https://…',
      )
      .requiredOption('--name <name>', 'unique name')
      .addOption(new Option('--kind <kind>', 'what it makes').choices(GENERATOR_KINDS).makeOptionMandatory())
      .option('--inactive', 'add it switched off'),
  ).action((options: AddOptions) => run(options, f));
}
