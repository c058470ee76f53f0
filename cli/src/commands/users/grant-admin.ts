import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { updatePermissions } from './update.ts';

export interface GrantAdminOptions {
  id: string;
}

export async function run(options: GrantAdminOptions, f: Factory): Promise<void> {
  await updatePermissions(f, options.id, { is_admin: true }, 'Made administrator:');
}

export function grantAdminCommand(f: Factory): Command {
  return new Command('grant-admin')
    .description('Make an account an administrator')
    .argument('<user>', 'user id or phone number')
    .action((id: string) => run({ id }, f));
}
