import { Command, Option } from 'commander';
import type { Factory } from '../../factory.ts';
import { pageSize, take, withListFlags, type ListFlags } from '../shared/lists.ts';
import { BUNDLE_COLUMNS } from './shared.ts';

export interface ListOptions extends ListFlags {
  scope: 'public' | 'all';
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const rows = f.content().paginate('/api/v1/bundles', {
    params: { query: { scope: options.scope, limit: pageSize(options) } },
  });
  f.printer().list(await take(rows, options), BUNDLE_COLUMNS);
}

export function listCommand(f: Factory): Command {
  return withListFlags(
    new Command('list')
      .description('Credit bundles for sale (buy one with muse credits buy)')
      .addOption(
        new Option('--scope <scope>', 'the public ones, or every one with drafts (administrators)')
          .choices(['public', 'all'])
          .default('public'),
      ),
  ).action((options: ListOptions) => run(options, f));
}
