import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { userId } from './shared.ts';

export interface GetOptions {
  id: string;
}

export async function run(options: GetOptions, f: Factory): Promise<void> {
  const { data } = await f
    .content()
    .GET('/api/v1/users/{id}', { params: { path: { id: await userId(f, options.id) } } });
  f.printer().record(data);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show an account')
    .argument('<user>', 'user id or phone number')
    .action((id: string) => run({ id }, f));
}
