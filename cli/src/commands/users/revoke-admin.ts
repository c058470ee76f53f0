import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { updatePermissions } from './update.ts';

export interface RevokeAdminOptions {
  id: string;
}

/** Takes effect on the account's next request: rights are read from the database each time. */
export async function run(options: RevokeAdminOptions, f: Factory): Promise<void> {
  await updatePermissions(f, options.id, { is_admin: false }, 'No longer administrator:');
}

export function revokeAdminCommand(f: Factory): Command {
  return new Command('revoke-admin')
    .description("Remove an account's administrator rights (effective at once)")
    .argument('<user>', 'user id or phone number')
    .action((id: string) => run({ id }, f));
}
