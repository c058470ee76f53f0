import { Command } from 'commander';
import type { ContentComponents } from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { positiveInteger } from '../shared/lists.ts';
import { bundleId } from './shared.ts';

export interface UpdateOptions {
  bundle: string;
  name?: string;
  credits?: number;
  priceCents?: number;
  currency?: string;
  description?: string;
  activate?: boolean;
  deactivate?: boolean;
  publish?: boolean;
  draft?: boolean;
}

/** Changes a bundle; open orders keep the price and credits they were opened with. */
export async function run(options: UpdateOptions, f: Factory): Promise<void> {
  if (options.activate && options.deactivate)
    throw usageError('--activate and --deactivate contradict each other');
  if (options.publish && options.draft) throw usageError('--publish and --draft contradict each other');
  const body: ContentComponents['schemas']['BundleUpdate'] = {
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.credits !== undefined ? { credits: options.credits } : {}),
    ...(options.priceCents !== undefined ? { price_cents: options.priceCents } : {}),
    ...(options.currency !== undefined ? { currency: options.currency } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.activate ? { is_active: true } : options.deactivate ? { is_active: false } : {}),
    ...(options.publish
      ? { visibility: 'public' as const }
      : options.draft
        ? { visibility: 'private' as const }
        : {}),
  };
  if (Object.keys(body).length === 0) throw usageError('nothing to change', 'see muse bundles update --help');
  const id = await bundleId(f, options.bundle, 'all');
  const { data } = await f.content().PATCH('/api/v1/bundles/{id}', { params: { path: { id } }, body });
  f.printer().success(`Updated bundle ${data.name}`);
  f.printer().record(data);
}

export function updateCommand(f: Factory): Command {
  return new Command('update')
    .description('Change a credit bundle (orders already open keep their price)')
    .argument('<bundle>', 'id or name')
    .option('--name <name>', 'new name')
    .option('--credits <n>', 'credits granted when paid', positiveInteger)
    .option('--price-cents <n>', 'price in the smallest unit of the currency', positiveInteger)
    .option('--currency <code>', 'ISO 4217 code')
    .option('--description <text>', 'what the bundle offers')
    .option('--activate', 'put it on sale')
    .option('--deactivate', 'take it off sale')
    .option('--publish', 'make it public')
    .option('--draft', 'make it private (administrators only)')
    .action((bundle: string, options: Omit<UpdateOptions, 'bundle'>) => run({ ...options, bundle }, f));
}
