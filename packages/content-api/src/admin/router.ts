import express, { type Router } from 'express';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import { readServerSettings, updateServerSettings } from '../server-config/server-config.ts';
import { readPaymentApi, updatePaymentApi } from './payment-api.ts';

/** Runtime configuration and the payment-provider configuration; administrators only. */
export function adminRouter({ db, secrets }: ContentContext): Router {
  const router = express.Router();
  route(router, 'get', '/api/v1/server-config', async (req, res) => {
    requireAdmin(req);
    res.json(await readServerSettings(db));
  });
  route(router, 'patch', '/api/v1/server-config', async (req, res) => {
    requireAdmin(req);
    res.json(await updateServerSettings(db, req.body));
  });
  route(router, 'get', '/api/v1/payment-api', async (req, res) => {
    requireAdmin(req);
    res.json(await readPaymentApi(db));
  });
  route(router, 'patch', '/api/v1/payment-api', async (req, res) => {
    requireAdmin(req);
    res.json(await updatePaymentApi(db, secrets, req.body));
  });
  return router;
}
