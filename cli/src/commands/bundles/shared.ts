import type { ContentComponents } from '@muse/sdk';
import type { Column } from '../../io/output.ts';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode } from '../../errors.ts';
import { isUuid } from '../shared/ids.ts';
import { money } from '../payments/shared.ts';

export type Bundle = ContentComponents['schemas']['Bundle'];

export const BUNDLE_COLUMNS: Column<Bundle>[] = [
  { header: 'ID', value: (b) => b.id },
  { header: 'NAME', value: (b) => b.name },
  { header: 'CREDITS', value: (b) => b.credits },
  { header: 'PRICE', value: (b) => money(b.price_cents, b.currency) },
  { header: 'ON SALE', value: (b) => (b.is_active && b.visibility === 'public' ? 'yes' : 'no') },
];

/** A bundle by id, or by name among the public ones (`scope: 'all'`, administrators: every one). */
export async function bundleId(
  f: Factory,
  idOrName: string,
  scope: 'public' | 'all' = 'public',
): Promise<string> {
  if (isUuid(idOrName)) return idOrName;
  const rows = f.content().paginate('/api/v1/bundles', { params: { query: { scope, limit: 100 } } });
  const found: Bundle[] = [];
  for await (const bundle of rows) if (bundle.name === idOrName) found.push(bundle);
  if (found.length === 1) return found[0]!.id;
  throw new CliError(
    found.length === 0 ? `no bundle named "${idOrName}"` : `several bundles are named "${idOrName}"`,
    {
      exitCode: found.length === 0 ? ExitCode.notFound : ExitCode.usage,
      code: found.length === 0 ? 'not_found' : 'ambiguous',
      hint: found.length === 0 ? 'see muse bundles list' : 'use its id (muse bundles list)',
    },
  );
}
