import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { updatePermissions } from '../update.ts';

export interface AddOptions {
  id: string;
  triples: string[];
}

export async function run(options: AddOptions, f: Factory): Promise<void> {
  await updatePermissions(
    f,
    options.id,
    { grant: options.triples },
    `Granted ${options.triples.join(', ')} to`,
  );
}

export function addCommand(f: Factory): Command {
  return new Command('add')
    .description('Grant permissions: muse users permission add <id> character:read:all')
    .argument('<user>', 'user id or phone number')
    .argument('<resource:operation:scope...>', 'permission triples')
    .action((id: string, triples: string[]) => run({ id, triples }, f));
}
