import express, { type Router } from 'express';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import { parseListQuery } from '../listing/listing.ts';
import {
  assertTypeAllowed,
  createProvider,
  deleteProvider,
  getProvider,
  pageProviders,
  toView,
  updateProvider,
} from './store.ts';

/** Administrator CRUD of SMS/voice code providers; secrets are accepted, never shown. */
export function codeProvidersRouter({ db, config, secrets }: ContentContext): Router {
  const router = express.Router();
  const production = config.NODE_ENV === 'production';
  const base = '/api/v1/verification-code-providers';

  route(router, 'get', '/api/v1/verification-code-providers', async (req, res) => {
    const user = requireAdmin(req);
    const query = parseListQuery(req.query as Record<string, unknown>);
    res.json((await pageProviders(db, query, user)).map(toView));
  });
  route(router, 'post', '/api/v1/verification-code-providers', async (req, res) => {
    requireAdmin(req);
    const input = req.body;
    assertTypeAllowed(input.type, production);
    const row = await createProvider(db, secrets, input);
    res.status(201).location(`${base}/${row.id}`).json(toView(row));
  });
  route(router, 'get', '/api/v1/verification-code-providers/{id}', async (req, res) => {
    requireAdmin(req);
    res.json(toView(await getProvider(db, req.params.id)));
  });
  route(router, 'patch', '/api/v1/verification-code-providers/{id}', async (req, res) => {
    requireAdmin(req);
    res.json(toView(await updateProvider(db, secrets, req.params.id, req.body)));
  });
  route(router, 'delete', '/api/v1/verification-code-providers/{id}', async (req, res) => {
    requireAdmin(req);
    await deleteProvider(db, req.params.id);
    res.status(204).end();
  });
  return router;
}
