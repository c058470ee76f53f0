import { Command } from 'commander';
import type { Factory } from '../../factory.ts';

export interface GetOptions {
  id: string;
}

export async function run(options: GetOptions, f: Factory): Promise<void> {
  f.printer().record(await f.content().payments.get(options.id));
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show a payment')
    .argument('<id>', 'payment id')
    .action((id: string) => run({ id }, f));
}
