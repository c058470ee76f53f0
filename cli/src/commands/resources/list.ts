import { Command, Option } from 'commander';
import type { ContentComponents } from '@muse/sdk';
import { componentsParametersScopeValues } from '@muse/sdk/generated/content';
import type { Factory } from '../../factory.ts';
import { pageSize, take, withListFlags, type ListFlags } from '../shared/lists.ts';
import { resourceCalls, resourcePath } from './catalog.ts';

export interface ListOptions extends ListFlags {
  resource: string;
  scope: ContentComponents['parameters']['Scope'];
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const rows = resourceCalls(f).paginate(resourcePath(options.resource), {
    params: { query: { scope: options.scope, limit: pageSize(options) } },
  });
  f.printer().list(await take(rows, options), [
    { header: 'ID', value: (row) => row.id },
    { header: 'NAME', value: (row) => row.name ?? row.title ?? '' },
    { header: 'VISIBILITY', value: (row) => row.visibility },
    { header: 'CREATED', value: (row) => row.created_at },
    { header: 'UPDATED', value: (row) => row.updated_at },
  ]);
}

export function listCommand(f: Factory): Command {
  return withListFlags(
    new Command('list')
      .description('List a resource: muse resources list characters --scope public')
      .argument('<resource>', 'resource name, e.g. character, project, invite_code')
      .addOption(
        new Option('--scope <scope>', 'yours, public ones, or all (administrators)')
          .choices(componentsParametersScopeValues)
          .default('own'),
      ),
  ).action((resource: string, options: Omit<ListOptions, 'resource'>) => run({ ...options, resource }, f));
}
