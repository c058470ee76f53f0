import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { providerId } from './shared.ts';

export interface RemoveOptions {
  provider: string;
}

export async function run(options: RemoveOptions, f: Factory): Promise<void> {
  const id = await providerId(f, options.provider);
  await f.content().DELETE('/api/v1/verification-code-providers/{id}', { params: { path: { id } } });
  f.printer().success(`Removed code provider ${options.provider}`);
}

export function removeCommand(f: Factory): Command {
  return new Command('remove')
    .description('Remove a code provider')
    .argument('<provider>', 'id or name')
    .action((provider: string) => run({ provider }, f));
}
