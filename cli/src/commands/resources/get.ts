import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { resourceCalls, resourcePath } from './catalog.ts';

export interface GetOptions {
  resource: string;
  id: string;
}

export async function run(options: GetOptions, f: Factory): Promise<void> {
  const { data } = await resourceCalls(f).get(
    `${resourcePath(options.resource)}/${encodeURIComponent(options.id)}`,
  );
  f.printer().record(data as object);
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show one item of a resource')
    .argument('<resource>', 'resource name')
    .argument('<id>', 'item id')
    .action((resource: string, id: string) => run({ resource, id }, f));
}
