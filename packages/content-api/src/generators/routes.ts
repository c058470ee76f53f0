import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import type { ContentContext } from '../app.ts';
import { requireAdmin, requirePermission } from '../auth/authenticate.ts';
import { NotFoundError } from '@muse/core';
import {
  adminGenerator,
  findGenerator,
  listActiveGenerators,
  publicGenerator,
  updateGenerator,
  upsertGenerator,
  type GeneratorSpec,
} from './generators.ts';
import type { GenerationKind } from './parameters.ts';

const LIST_PATHS: Record<string, GenerationKind> = { images: 'image', videos: 'video', texts: 'text' };

/**
 * Generators: every user lists the active ones of a kind and reads their parameter schema;
 * administrators create, change and deactivate them (DELETE deactivates: past generations
 * keep pointing at their generator).
 */
export function generatorsRouter(context: ContentContext): Router {
  const router = Router();
  const { db } = context;

  for (const [segment, kind] of Object.entries(LIST_PATHS)) {
    router.get(`/api/v1/generators/${segment}`, async (req, res) => {
      requirePermission(req, 'generator', 'read', 'public');
      res.json((await listActiveGenerators(db, kind)).map(publicGenerator));
    });
  }

  router.get('/api/v1/generations/schemas', async (req, res) => {
    requirePermission(req, 'generator', 'read', 'public');
    const generator = await findGenerator(db, String(req.query.generator_id));
    if (!generator || (!generator.is_active && !req.user!.isAdmin))
      throw new NotFoundError('No such generator');
    res.json(generator.parameters_schema);
  });

  router.post('/api/v1/generators', async (req, res) => {
    requireAdmin(req);
    const row = await upsertGenerator(db, context.secrets, {
      ...(req.body as GeneratorSpec),
      id: randomUUID(),
    });
    res.status(201).json(adminGenerator(row));
  });

  router.get('/api/v1/generators/:id', async (req, res) => {
    const generator = await findGenerator(db, req.params.id);
    if (req.user!.isAdmin && generator) return void res.json(adminGenerator(generator));
    requirePermission(req, 'generator', 'read', 'public');
    if (!generator?.is_active) throw new NotFoundError('No such generator');
    res.json(publicGenerator(generator));
  });

  router.patch('/api/v1/generators/:id', async (req, res) => {
    requireAdmin(req);
    res.json(
      adminGenerator(
        await updateGenerator(db, context.secrets, req.params.id, req.body as Partial<GeneratorSpec>),
      ),
    );
  });

  router.delete('/api/v1/generators/:id', async (req, res) => {
    requireAdmin(req);
    await updateGenerator(db, context.secrets, req.params.id, { is_active: false });
    res.status(204).end();
  });

  return router;
}
