import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { updatePermissions } from '../update.ts';

export interface RemoveOptions {
  id: string;
  triples: string[];
}

/** Revokes triples, defaults included (a default comes back with `reset`, not offered here). */
export async function run(options: RemoveOptions, f: Factory): Promise<void> {
  await updatePermissions(
    f,
    options.id,
    { revoke: options.triples },
    `Revoked ${options.triples.join(', ')} from`,
  );
}

export function removeCommand(f: Factory): Command {
  return new Command('remove')
    .description('Revoke permissions: muse users permission remove <id> file:delete:own')
    .argument('<user>', 'user id or phone number')
    .argument('<resource:operation:scope...>', 'permission triples')
    .action((id: string, triples: string[]) => run({ id, triples }, f));
}
