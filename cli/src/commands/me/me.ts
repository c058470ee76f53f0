import { Command } from 'commander';
import type { Factory } from '../../factory.ts';

export type MeOptions = Record<string, never>;

export async function run(_options: MeOptions, f: Factory): Promise<void> {
  f.printer().record((await f.content().GET('/api/v1/users/me')).data);
}

export function meCommand(f: Factory): Command {
  return new Command('me')
    .description('Your account: balance, permissions, profile')
    .action(() => run({}, f));
}
