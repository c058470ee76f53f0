import { Command, Option } from 'commander';
import type { ContentComponents } from '@muse/sdk';
import { componentsParametersScopeValues } from '@muse/sdk/generated/content';
import type { Factory } from '../../factory.ts';
import { pageSize, take, withListFlags, type ListFlags } from '../shared/lists.ts';
import { FILE_COLUMNS } from './shared.ts';

export interface ListOptions extends ListFlags {
  scope: ContentComponents['parameters']['Scope'];
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const rows = f.content().paginate('/api/v1/files', {
    params: { query: { scope: options.scope, limit: pageSize(options) } },
  });
  f.printer().list(await take(rows, options), FILE_COLUMNS);
}

export function listCommand(f: Factory): Command {
  return withListFlags(
    new Command('list')
      .description('List files, newest first')
      .addOption(
        new Option('--scope <scope>', 'yours, public ones, or every file (administrators)')
          .choices(componentsParametersScopeValues)
          .default('own'),
      ),
  ).action((options: ListOptions) => run(options, f));
}
