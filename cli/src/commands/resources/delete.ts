import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { resourceCalls, resourcePath } from './catalog.ts';

export interface DeleteOptions {
  resource: string;
  id: string;
}

export async function run(options: DeleteOptions, f: Factory): Promise<void> {
  await resourceCalls(f).delete(`${resourcePath(options.resource)}/${encodeURIComponent(options.id)}`);
  f.printer().success(`Deleted ${options.resource} ${options.id}`);
}

export function deleteCommand(f: Factory): Command {
  return new Command('delete')
    .description('Delete an item')
    .argument('<resource>', 'resource name')
    .argument('<id>', 'item id')
    .action((resource: string, id: string) => run({ resource, id }, f));
}
