import type { ContentComponents } from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { userId } from './shared.ts';

/** The changes `PATCH /users/{id}` accepts (ban, unban, credits, profile). */
export type UserChanges = ContentComponents['schemas']['UserAdminUpdate'];

/** One administrator change of an account (by id or phone number), confirmed on stderr, the account on stdout. */
export async function updateUser(
  f: Factory,
  user: string,
  changes: UserChanges,
  done: string,
): Promise<void> {
  const id = await userId(f, user);
  const { data } = await f.content().PATCH('/api/v1/users/{id}', { params: { path: { id } }, body: changes });
  f.printer().success(`${done} ${data.phone} (${data.id})`);
  f.printer().record(data);
}

/** Administrator rights go through the permission endpoint. */
export async function updatePermissions(
  f: Factory,
  user: string,
  changes: { is_admin?: boolean; grant?: string[]; revoke?: string[]; reset?: string[] },
  done: string,
): Promise<void> {
  const id = await userId(f, user);
  const { data } = await f
    .content()
    .PATCH('/api/v1/users/{id}/permission', { params: { path: { id } }, body: changes });
  f.printer().success(`${done} ${data.phone} (${data.id})`);
  f.printer().record(data);
}
