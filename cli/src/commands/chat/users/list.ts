import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { roleName } from '../calls.ts';

export type ListOptions = Record<string, never>;

export async function run(_options: ListOptions, f: Factory): Promise<void> {
  const { data } = await f.chat().GET('/api/v1/users');
  f.printer().list(data.members, [
    { header: 'ID', value: (u) => u.user_id },
    { header: 'EMAIL', value: (u) => u.email },
    { header: 'NAME', value: (u) => u.full_name },
    { header: 'ROLE', value: (u) => roleName(u.role) },
    { header: 'ACTIVE', value: (u) => (u.is_active === false ? 'no' : 'yes') },
    { header: 'BOT', value: (u) => (u.is_bot ? 'yes' : '') },
  ]);
}

export function listCommand(f: Factory): Command {
  return new Command('list').description('List the users of the organization').action(() => run({}, f));
}
