import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { updateUser } from './update.ts';

export interface UnbanOptions {
  id: string;
}

export async function run(options: UnbanOptions, f: Factory): Promise<void> {
  await updateUser(f, options.id, { is_active: true }, 'Unbanned');
}

export function unbanCommand(f: Factory): Command {
  return new Command('unban')
    .description('Lift the ban of an account')
    .argument('<user>', 'user id or phone number')
    .action((id: string) => run({ id }, f));
}
