import { randomUUID } from 'node:crypto';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { requireAdmin, requirePermission } from '../auth/authenticate.ts';
import { NotFoundError } from '@muse/core';
import {
  adminGenerator,
  findGenerator,
  listGenerators,
  publicGenerator,
  updateGenerator,
  upsertGenerator,
} from './generators.ts';
import type { GenerationKind } from './parameters.ts';
import { parseListQuery } from '../listing/listing.ts';

/**
 * Generators: every user lists the active ones of a kind and reads their parameter schema;
 * administrators create, change and deactivate them (DELETE deactivates: past generations
 * keep pointing at their generator).
 */
export function generatorsRoutes(context: ContentContext): Routes {
  const routes = new Routes();
  const { db } = context;

  const listRoute = (
    path: '/api/v1/generators/images' | '/api/v1/generators/videos' | '/api/v1/generators/texts',
    kind: GenerationKind,
  ) =>
    route(routes, 'get', path, async (req, res) => {
      const user = requirePermission(req, 'generator', 'read', 'public');
      const includeInactive = String(req.query.include_inactive) === 'true';
      if (includeInactive) requireAdmin(req);
      const query = parseListQuery(req.query as Record<string, unknown>);
      res.json((await listGenerators(db, kind, query, user, { includeInactive })).map(publicGenerator));
    });
  listRoute('/api/v1/generators/images', 'image');
  listRoute('/api/v1/generators/videos', 'video');
  listRoute('/api/v1/generators/texts', 'text');

  route(routes, 'get', '/api/v1/generations/schemas', async (req, res) => {
    requirePermission(req, 'generator', 'read', 'public');
    const generator = await findGenerator(db, req.query.generator_id);
    if (!generator || (!generator.is_active && !req.user!.isAdmin))
      throw new NotFoundError('No such generator');
    res.json(generator.parameters_schema);
  });

  route(routes, 'post', '/api/v1/generators', async (req, res) => {
    requireAdmin(req);
    const row = await upsertGenerator(db, context.secrets, { ...req.body, id: randomUUID() });
    res.status(201).json(adminGenerator(row));
  });

  route(routes, 'get', '/api/v1/generators/{generator_id}', async (req, res) => {
    const generator = await findGenerator(db, req.params.generator_id);
    if (req.user!.isAdmin && generator) return void res.json(adminGenerator(generator));
    requirePermission(req, 'generator', 'read', 'public');
    if (!generator?.is_active) throw new NotFoundError('No such generator');
    res.json(publicGenerator(generator));
  });

  route(routes, 'patch', '/api/v1/generators/{generator_id}', async (req, res) => {
    requireAdmin(req);
    res.json(adminGenerator(await updateGenerator(db, context.secrets, req.params.generator_id, req.body)));
  });

  route(routes, 'delete', '/api/v1/generators/{generator_id}', async (req, res) => {
    requireAdmin(req);
    await updateGenerator(db, context.secrets, req.params.generator_id, { is_active: false });
    res.status(204).end();
  });

  return routes;
}
