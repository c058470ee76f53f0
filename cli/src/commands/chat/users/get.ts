import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';

export interface GetOptions {
  user: string;
}

export async function run(options: GetOptions, f: Factory): Promise<void> {
  const { data } = await f.chat().GET('/api/v1/users/{user}', { params: { path: { user: options.user } } });
  f.printer().record(data.user);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show a user')
    .argument('<user>', 'user id or email')
    .action((user: string) => run({ user }, f));
}
