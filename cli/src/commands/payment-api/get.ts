import { Command } from 'commander';
import type { Factory } from '../../factory.ts';

export type GetOptions = Record<string, never>;

export async function run(_options: GetOptions, f: Factory): Promise<void> {
  f.printer().record((await f.content().GET('/api/v1/payment-api')).data);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show the payment-provider configuration (secrets by name only)')
    .action(() => run({}, f));
}
