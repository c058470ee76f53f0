import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { generatorId } from './shared.ts';
import { generatorFields, withGeneratorFlags, type GeneratorFlags } from './input.ts';

export interface UpdateOptions extends GeneratorFlags {
  generator: string;
  enable?: boolean;
}

/** Only the fields given change; `--enable` reactivates a disabled generator. */
export async function run(options: UpdateOptions, f: Factory): Promise<void> {
  const body = { ...(await generatorFields(options, f)), ...(options.enable ? { is_active: true } : {}) };
  if (Object.keys(body).length === 0)
    throw usageError('nothing to change', 'see muse generators update --help');
  const id = await generatorId(f, options.generator, { includeInactive: true });
  const { data } = await f
    .content()
    .PATCH('/api/v1/generators/{generator_id}', { params: { path: { generator_id: id } }, body });
  f.printer().success(`Updated generator ${data.name}`);
  f.printer().record(data);
}

export function updateCommand(f: Factory): Command {
  return withGeneratorFlags(
    new Command('update')
      .description('Change a generator')
      .argument('<generator>', 'id or name')
      .option('--name <name>', 'new name')
      .option('--enable', 'reactivate a disabled generator'),
  ).action((generator: string, options: Omit<UpdateOptions, 'generator'>) =>
    run({ ...options, generator }, f),
  );
}
