import type { ContentContext } from '../context.ts';
import { requirePermission } from '../auth/authenticate.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { redeemInviteCode } from './redemption.ts';

/** `POST /api/v1/invite-codes/redeem {code}`; the codes themselves are a declared resource (`invite_code`). */
export function invitesRoutes({ db }: ContentContext): Routes {
  const routes = new Routes();
  route(routes, 'post', '/api/v1/invite-codes/redeem', async (req, res) => {
    const user = requirePermission(req, 'invite_redemption', 'create', 'own');
    res.status(201).json(await redeemInviteCode(db, user, req.body.code));
  });
  return routes;
}
