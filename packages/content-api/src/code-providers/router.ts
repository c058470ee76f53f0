import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
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
export function codeProvidersRoutes({ db, config, secrets }: ContentContext): Routes {
  const routes = new Routes();
  const production = config.NODE_ENV === 'production';
  const base = '/api/v1/verification-code-providers';

  route(routes, 'get', '/api/v1/verification-code-providers', async (req, res) => {
    const user = requireAdmin(req);
    const query = parseListQuery(req.query as Record<string, unknown>);
    res.json((await pageProviders(db, query, user)).map(toView));
  });
  route(routes, 'post', '/api/v1/verification-code-providers', async (req, res) => {
    requireAdmin(req);
    const input = req.body;
    assertTypeAllowed(input.type, production);
    const row = await createProvider(db, secrets, input);
    res.status(201).location(`${base}/${row.id}`).json(toView(row));
  });
  route(routes, 'get', '/api/v1/verification-code-providers/{id}', async (req, res) => {
    requireAdmin(req);
    res.json(toView(await getProvider(db, req.params.id)));
  });
  route(routes, 'patch', '/api/v1/verification-code-providers/{id}', async (req, res) => {
    requireAdmin(req);
    res.json(toView(await updateProvider(db, secrets, req.params.id, req.body)));
  });
  route(routes, 'delete', '/api/v1/verification-code-providers/{id}', async (req, res) => {
    requireAdmin(req);
    await deleteProvider(db, req.params.id);
    res.status(204).end();
  });
  return routes;
}
