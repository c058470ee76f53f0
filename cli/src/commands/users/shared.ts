import type { ContentComponents } from '@muse/sdk';
import type { Column } from '../../io/output.ts';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode } from '../../errors.ts';
import { isUuid } from '../shared/ids.ts';

export type User = ContentComponents['schemas']['User'];

export const USER_COLUMNS: Column<User>[] = [
  { header: 'ID', value: (u) => u.id },
  { header: 'PHONE', value: (u) => u.phone },
  { header: 'NICKNAME', value: (u) => u.nickname },
  { header: 'ACTIVE', value: (u) => (u.is_active ? 'yes' : 'banned') },
  { header: 'ADMIN', value: (u) => (u.is_admin ? 'yes' : '') },
  { header: 'BALANCE', value: (u) => u.balance },
  { header: 'CREATED', value: (u) => u.created_at },
];

/**
 * An account by id or by phone number. The API looks accounts up by id only, so a phone number
 * is found by reading every account's page (administrators), stopping at the match.
 */
export async function userId(f: Factory, idOrPhone: string): Promise<string> {
  if (isUuid(idOrPhone)) return idOrPhone;
  const rows = f.content().paginate('/api/v1/users', { params: { query: { scope: 'all', limit: 100 } } });
  for await (const user of rows) if (user.phone === idOrPhone) return user.id;
  throw new CliError(`no account with the phone number ${idOrPhone}`, {
    exitCode: ExitCode.notFound,
    code: 'not_found',
    hint: 'see muse users list --all',
  });
}
