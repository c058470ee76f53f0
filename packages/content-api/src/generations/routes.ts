import { Router } from 'express';
import type { ContentContext } from '../app.ts';
import { route } from '../http/contract.ts';
import { requirePermission } from '../auth/authenticate.ts';
import type { GenerationKind } from '../generators/parameters.ts';
import { submitGeneration } from './submit.ts';

/** `POST /api/v1/generations/{images|videos|texts}`: 202 with the pending result files. */
export function generationsRouter(context: ContentContext): Router {
  const router = Router();
  const submitRoute = (
    path: '/api/v1/generations/images' | '/api/v1/generations/videos' | '/api/v1/generations/texts',
    kind: GenerationKind,
  ) =>
    route(router, 'post', path, async (req, res) => {
      const user = requirePermission(req, 'generation', 'create', 'own');
      const key = req.get('Idempotency-Key') || undefined;
      res.status(202).json(await submitGeneration(context, user, kind, req.body, key));
    });
  submitRoute('/api/v1/generations/images', 'image');
  submitRoute('/api/v1/generations/videos', 'video');
  submitRoute('/api/v1/generations/texts', 'text');
  return router;
}
