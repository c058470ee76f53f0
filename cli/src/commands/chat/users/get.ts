import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { chat } from '../calls.ts';

export interface GetOptions {
  user: string;
}

export async function run(options: GetOptions, f: Factory): Promise<void> {
  const { data } = await chat(f).get(`/api/v1/users/${encodeURIComponent(options.user)}`);
  f.printer().record(data.user as object);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show a user')
    .argument('<user>', 'user id or email')
    .action((user: string) => run({ user }, f));
}
