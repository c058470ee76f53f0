import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { resourceCalls, resourcePath } from './catalog.ts';
import { bodyOf, withBodyFlags, type BodyFlags } from './body.ts';

export interface CreateOptions extends BodyFlags {
  resource: string;
}

export async function run(options: CreateOptions, f: Factory): Promise<void> {
  const { data } = await resourceCalls(f).post(resourcePath(options.resource), { body: bodyOf(options) });
  f.printer().success(`Created ${options.resource} ${(data as { id: string }).id}`);
  f.printer().record(data as object);
}

export function createCommand(f: Factory): Command {
  return withBodyFlags(
    new Command('create')
      .description('Create an item: muse resources create character --set name=Ada --set visibility=public')
      .argument('<resource>', 'resource name'),
  ).action((resource: string, options: BodyFlags) => run({ ...options, resource }, f));
}
