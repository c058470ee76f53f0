import { Command, Option } from 'commander';
import type { ContentComponents } from '@muse/sdk';
import { componentsParametersScopeValues, transactionLogKindValues } from '@muse/sdk/generated/content';
import type { Factory } from '../../factory.ts';
import type { Column } from '../../io/output.ts';
import { pageSize, take, withListFlags, type ListFlags } from '../shared/lists.ts';

type Entry = ContentComponents['schemas']['TransactionLog'];

const COLUMNS: Column<Entry>[] = [
  { header: 'WHEN', value: (e) => e.created_at },
  { header: 'KIND', value: (e) => e.kind },
  { header: 'AMOUNT', value: (e) => (e.amount > 0 ? `+${e.amount}` : e.amount) },
  { header: 'BALANCE', value: (e) => e.balance_after },
  { header: 'DESCRIPTION', value: (e) => e.description },
  { header: 'ID', value: (e) => e.id },
];

export interface ListOptions extends ListFlags {
  scope: Exclude<ContentComponents['parameters']['Scope'], 'public'>;
  kind?: Entry['kind'];
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const rows = f.content().paginate('/api/v1/transaction-logs', {
    params: {
      query: {
        scope: options.scope,
        limit: pageSize(options),
        ...(options.kind ? { kind: options.kind } : {}),
      },
    },
  });
  f.printer().list(await take(rows, options), COLUMNS);
}

export function listCommand(f: Factory): Command {
  return withListFlags(
    new Command('list')
      .description('Credit movements, newest first')
      .addOption(
        new Option('--scope <scope>', "yours, or everyone's (administrators)")
          .choices(componentsParametersScopeValues.filter((scope) => scope !== 'public'))
          .default('own'),
      )
      .addOption(new Option('--kind <kind>', 'only this kind').choices(transactionLogKindValues)),
  ).action((options: ListOptions) => run(options, f));
}
