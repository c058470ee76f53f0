import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { resourceCalls, resourcePath } from './catalog.ts';
import { bodyOf, withBodyFlags, type BodyFlags } from './body.ts';

export interface UpdateOptions extends BodyFlags {
  resource: string;
  id: string;
}

export async function run(options: UpdateOptions, f: Factory): Promise<void> {
  const path = `${resourcePath(options.resource)}/${encodeURIComponent(options.id)}`;
  const { data } = await resourceCalls(f).patch(path, { body: bodyOf(options) });
  f.printer().success(`Updated ${options.resource} ${options.id}`);
  f.printer().record(data as object);
}

export function updateCommand(f: Factory): Command {
  return withBodyFlags(
    new Command('update')
      .description('Change an item: muse resources update project <id> --set visibility=public')
      .argument('<resource>', 'resource name')
      .argument('<id>', 'item id'),
  ).action((resource: string, id: string, options: BodyFlags) => run({ ...options, resource, id }, f));
}
