import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { updateUser } from './update.ts';

export interface BanOptions {
  id: string;
}

/** A banned account gets 403 on its next request, even with an unexpired token. */
export async function run(options: BanOptions, f: Factory): Promise<void> {
  await updateUser(f, options.id, { is_active: false }, 'Banned');
}

export function banCommand(f: Factory): Command {
  return new Command('ban')
    .description('Ban an account (it is refused from its next request on)')
    .argument('<user>', 'user id or phone number')
    .action((id: string) => run({ id }, f));
}
