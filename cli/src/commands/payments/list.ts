import { Command, Option } from 'commander';
import type { Payment } from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { pageSize, take, withListFlags, type ListFlags } from '../shared/lists.ts';
import { PAYMENT_COLUMNS } from './shared.ts';

const STATUSES = [
  'pending',
  'paid',
  'closed',
  'failed',
  'refunded',
] as const satisfies readonly Payment['status'][];
const PROVIDERS = [
  'wechat_pay',
  'alipay',
  'development',
  'manual',
] as const satisfies readonly Payment['provider'][];

export interface ListOptions extends ListFlags {
  scope: 'own' | 'all';
  status?: Payment['status'];
  provider?: Payment['provider'];
  needsRefund?: boolean;
}

export async function run(options: ListOptions, f: Factory): Promise<void> {
  const rows = f.content().paginate('/api/v1/payments', {
    params: {
      query: {
        scope: options.scope,
        desc: true,
        limit: pageSize(options),
        ...(options.status ? { status: options.status } : {}),
        ...(options.provider ? { provider: options.provider } : {}),
        ...(options.needsRefund ? { needs_refund: true } : {}),
      },
    },
  });
  f.printer().list(await take(rows, options), PAYMENT_COLUMNS);
}

export function listCommand(f: Factory): Command {
  return withListFlags(
    new Command('list')
      .description('Top-up payments, newest first')
      .addOption(
        new Option('--scope <scope>', "yours, or everyone's (administrators)")
          .choices(['own', 'all'])
          .default('own'),
      )
      .addOption(new Option('--status <status>', 'only this status').choices(STATUSES))
      .addOption(new Option('--provider <provider>', 'only this provider').choices(PROVIDERS))
      .option('--needs-refund', 'only payments paid after they closed (to refund)'),
  ).action((options: ListOptions) => run(options, f));
}
