import express, { type Router } from 'express';
import type { ContentContext } from '../app.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import {
  assertTypeAllowed,
  createProvider,
  deleteProvider,
  getProvider,
  listProviders,
  toView,
  updateProvider,
  type ProviderChanges,
  type ProviderInput,
} from './store.ts';

/** Administrator CRUD of SMS/voice code providers; secrets are accepted, never shown. */
export function codeProvidersRouter({ db, config, secrets }: ContentContext): Router {
  const router = express.Router();
  const production = config.NODE_ENV === 'production';
  const base = '/api/v1/verification-code-providers';

  router.get(base, async (req, res) => {
    requireAdmin(req);
    res.json((await listProviders(db)).map(toView));
  });
  router.post(base, async (req, res) => {
    requireAdmin(req);
    const input = req.body as ProviderInput;
    assertTypeAllowed(input.type, production);
    const row = await createProvider(db, secrets, input);
    res.status(201).location(`${base}/${row.id}`).json(toView(row));
  });
  router.get(`${base}/:id`, async (req, res) => {
    requireAdmin(req);
    res.json(toView(await getProvider(db, req.params.id)));
  });
  router.patch(`${base}/:id`, async (req, res) => {
    requireAdmin(req);
    res.json(toView(await updateProvider(db, secrets, req.params.id, req.body as ProviderChanges)));
  });
  router.delete(`${base}/:id`, async (req, res) => {
    requireAdmin(req);
    await deleteProvider(db, req.params.id);
    res.status(204).end();
  });
  return router;
}
