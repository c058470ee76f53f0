import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { positiveInteger } from '../shared/lists.ts';
import type { ContentComponents } from '@muse/sdk';

export interface AddOptions {
  name: string;
  credits: number;
  priceCents: number;
  currency?: string;
  description?: string;
  inactive?: boolean;
  draft?: boolean;
}

/** Adds a bundle; public and on sale unless `--draft` or `--inactive`. */
export async function run(options: AddOptions, f: Factory): Promise<void> {
  const body: ContentComponents['schemas']['BundleCreate'] = {
    name: options.name,
    credits: options.credits,
    price_cents: options.priceCents,
    ...(options.currency !== undefined ? { currency: options.currency } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.inactive ? { is_active: false } : {}),
    ...(options.draft ? { visibility: 'private' as const } : {}),
  };
  const { data } = await f.content().POST('/api/v1/bundles', { body });
  f.printer().success(`Added bundle ${data.name} (${data.id})`);
  f.printer().record(data);
}

export function addCommand(f: Factory): Command {
  return new Command('add')
    .description('Add a credit bundle: muse bundles add --name Starter --credits 100 --price-cents 990')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--credits <n>', 'credits granted when paid', positiveInteger)
    .requiredOption(
      '--price-cents <n>',
      'price in the smallest unit of the currency (fen for CNY)',
      positiveInteger,
    )
    .option('--currency <code>', 'ISO 4217 code (default CNY, the one WeChat Pay and Alipay take)')
    .option('--description <text>', 'what the bundle offers')
    .option('--inactive', 'add it off sale')
    .option('--draft', 'add it private: only administrators see it')
    .action((options: AddOptions) => run(options, f));
}
