import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { providerId } from './shared.ts';

export interface GetOptions {
  provider: string;
}

export async function run(options: GetOptions, f: Factory): Promise<void> {
  const id = await providerId(f, options.provider);
  const { data } = await f
    .content()
    .GET('/api/v1/verification-code-providers/{id}', { params: { path: { id } } });
  f.printer().record(data);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show a code provider (secrets appear by name only)')
    .argument('<provider>', 'id or name')
    .action((provider: string) => run({ provider }, f));
}
