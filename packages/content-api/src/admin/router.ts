import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import { readServerSettings, updateServerSettings } from '../server-config/server-config.ts';
import { readPaymentApi, updatePaymentApi } from './payment-api.ts';

/** Runtime configuration and the payment-provider configuration; administrators only. */
export function adminRoutes({ db, secrets }: ContentContext): Routes {
  const routes = new Routes();
  route(routes, 'get', '/api/v1/server-config', async (req, res) => {
    requireAdmin(req);
    res.json(await readServerSettings(db));
  });
  route(routes, 'patch', '/api/v1/server-config', async (req, res) => {
    requireAdmin(req);
    res.json(await updateServerSettings(db, req.body));
  });
  route(routes, 'get', '/api/v1/payment-api', async (req, res) => {
    requireAdmin(req);
    res.json(await readPaymentApi(db));
  });
  route(routes, 'patch', '/api/v1/payment-api', async (req, res) => {
    requireAdmin(req);
    res.json(await updatePaymentApi(db, secrets, req.body));
  });
  return routes;
}
