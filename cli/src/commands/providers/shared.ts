import type { ContentComponents } from '@muse/sdk';
import type { Column } from '../../io/output.ts';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode } from '../../errors.ts';
import { isUuid } from '../shared/ids.ts';

export type Provider = ContentComponents['schemas']['CodeProvider'];
/** The free-form `config` object of a provider, as the generated types name it. */
export type ProviderCreate = ContentComponents['schemas']['CodeProviderCreate'];
export type ProviderConfig = ProviderCreate['config'];

export const PROVIDER_COLUMNS: Column<Provider>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'NAME', value: (p) => p.name },
  { header: 'TYPE', value: (p) => p.type },
  { header: 'ENABLED', value: (p) => (p.enabled ? 'yes' : 'no') },
  { header: 'PRIORITY', value: (p) => p.priority },
  { header: 'DELIVERS', value: (p) => p.code_types },
];

/** A provider by id or by name (names are unique). */
export async function providerId(f: Factory, idOrName: string): Promise<string> {
  if (isUuid(idOrName)) return idOrName;
  const { data } = await f.content().GET('/api/v1/verification-code-providers');
  const found = data.find((provider) => provider.name === idOrName);
  if (!found) {
    throw new CliError(`no code provider named "${idOrName}"`, {
      exitCode: ExitCode.notFound,
      code: 'not_found',
      hint: 'see muse providers list',
    });
  }
  return found.id;
}
