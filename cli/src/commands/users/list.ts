import { Command, Option } from 'commander';
import type { ContentComponents } from '@muse/sdk';
import { componentsParametersScopeValues } from '@muse/sdk/generated/content';
import type { Factory } from '../../factory.ts';
import { pageSize, take, withListFlags, type ListFlags } from '../shared/lists.ts';
import { USER_COLUMNS } from './shared.ts';

export interface ListOptions extends ListFlags {
  /** Accounts are never public. */
  scope: Exclude<ContentComponents['parameters']['Scope'], 'public'>;
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const rows = f.content().paginate('/api/v1/users', {
    params: { query: { scope: options.scope, limit: pageSize(options) } },
  });
  f.printer().list(await take(rows, options), USER_COLUMNS);
}

export function listCommand(f: Factory): Command {
  return withListFlags(
    new Command('list')
      .description('List accounts (every account for administrators)')
      .addOption(
        new Option('--scope <scope>', 'all accounts, or your own')
          .choices(componentsParametersScopeValues.filter((scope) => scope !== 'public'))
          .default('all'),
      ),
  ).action((options: ListOptions) => run(options, f));
}
