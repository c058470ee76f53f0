import type { ContentContext } from '../context.ts';
import type { Sequelize } from '@muse/core';
import { currentAccount, currentUser, requireAdmin, type CurrentUser } from '../auth/authenticate.ts';
import { assertReferenceReadable } from '../resources/access.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { authorizeListScope, listRows, parseListQuery } from '../listing/listing.ts';
import { changePermissions, deleteUser, findUser, toUserView, updateUser, userStats } from './users.ts';
import type { UserRow } from './user-row.ts';

/**
 * Accounts: everyone reads and edits their own profile at `/users/me`; administrators list,
 * count, change, ban, promote and delete any account. A user's "own" row is the account itself.
 */
export function usersRoutes({ db }: ContentContext): Routes {
  const routes = new Routes();

  route(routes, 'get', '/api/v1/users', async (req, res) => {
    const query = parseListQuery(req.query);
    const user = authorizeListScope(req, 'user', query.scope);
    const rows = await listRows<UserRow>(
      db,
      { from: 'content.users', hasVisibility: false, ownerColumn: 'id', answeredAsRead: true },
      query,
      user,
    );
    res.json(rows.map(toUserView));
  });
  route(routes, 'get', '/api/v1/users/stats', async (req, res) => {
    requireAdmin(req);
    res.json(await userStats(db));
  });
  route(routes, 'get', '/api/v1/users/me', async (req, res) => {
    // The account was read by `authenticate` in this very request.
    res.json(toUserView(currentAccount(req)));
  });
  route(routes, 'patch', '/api/v1/users/me', async (req, res) => {
    const { nickname, bio, avatar_file_id } = req.body;
    await assertAvatarReadable(db, currentUser(req), avatar_file_id);
    res.json(toUserView(await updateUser(db, currentUser(req).id, { nickname, bio, avatar_file_id })));
  });
  route(routes, 'get', '/api/v1/users/{id}', async (req, res) => {
    const caller = currentUser(req);
    if (caller.id !== req.params.id) requireAdmin(req);
    res.json(toUserView(await findUser(db, req.params.id)));
  });
  route(routes, 'patch', '/api/v1/users/{id}', async (req, res) => {
    const changes = req.body;
    await assertAvatarReadable(db, requireAdmin(req), changes.avatar_file_id);
    res.json(toUserView(await updateUser(db, req.params.id, changes)));
  });
  route(routes, 'patch', '/api/v1/users/{id}/permission', async (req, res) => {
    requireAdmin(req);
    res.json(toUserView(await changePermissions(db, req.params.id, req.body)));
  });
  route(routes, 'delete', '/api/v1/users/{id}', async (req, res) => {
    requireAdmin(req);
    await deleteUser(db, req.params.id);
    res.status(204).end();
  });
  return routes;
}

/** An avatar is a file the caller may read; otherwise 404, as for any reference (hides private files). */
async function assertAvatarReadable(
  db: Sequelize,
  caller: CurrentUser,
  fileId: string | null | undefined,
): Promise<void> {
  if (typeof fileId === 'string') await assertReferenceReadable(db, caller, 'file', fileId, 'avatar_file_id');
}
