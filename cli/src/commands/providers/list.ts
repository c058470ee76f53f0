import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { PROVIDER_COLUMNS } from './shared.ts';

export type ListOptions = Record<string, never>;

export async function run(_options: ListOptions, f: Factory): Promise<void> {
  const { data } = await f.content().GET('/api/v1/verification-code-providers');
  f.printer().list(data, PROVIDER_COLUMNS);
}

export function listCommand(f: Factory): Command {
  return new Command('list')
    .description('List code providers in the order they are tried')
    .action(() => run({}, f));
}
