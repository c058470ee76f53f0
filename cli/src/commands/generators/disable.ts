import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { generatorId } from './shared.ts';

export interface DisableOptions {
  generator: string;
}

/** It stops being listed and taking tasks; it is kept for the tasks that refer to it. */
export async function run(options: DisableOptions, f: Factory): Promise<void> {
  const id = await generatorId(f, options.generator, { includeInactive: true });
  await f.content().DELETE('/api/v1/generators/{generator_id}', { params: { path: { generator_id: id } } });
  f.printer().success(
    `Disabled generator ${options.generator} (muse generators update ${id} --enable brings it back)`,
  );
}

export function disableCommand(f: Factory): Command {
  return new Command('disable')
    .description('Deactivate a generator')
    .argument('<generator>', 'id or name')
    .action((generator: string) => run({ generator }, f));
}
