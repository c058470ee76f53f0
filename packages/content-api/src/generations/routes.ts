import { Router } from 'express';
import type { ContentContext } from '../app.ts';
import { requirePermission } from '../auth/authenticate.ts';
import type { GenerationKind } from '../generators/parameters.ts';
import { cancelGeneration } from './cancel.ts';
import { submitGeneration } from './submit.ts';

const SUBMIT_PATHS: Record<string, GenerationKind> = { images: 'image', videos: 'video', texts: 'text' };

/**
 * `POST /api/v1/generations/{images|videos|texts}`: 202 with the pending result files;
 * `POST /api/v1/generations/{id}/cancel`: failed, refunded, upstream stopped.
 */
export function generationsRouter(context: ContentContext): Router {
  const router = Router();
  for (const [segment, kind] of Object.entries(SUBMIT_PATHS)) {
    router.post(`/api/v1/generations/${segment}`, async (req, res) => {
      const user = requirePermission(req, 'generation', 'create', 'own');
      const key = req.get('Idempotency-Key') || undefined;
      const answer = await submitGeneration(context, user, kind, req.body as Record<string, unknown>, key);
      res.status(202).json(answer);
    });
  }
  router.post('/api/v1/generations/:generationId/cancel', async (req, res) => {
    const user = requirePermission(req, 'generation', 'create', 'own');
    res.json(await cancelGeneration(context, user, String(req.params.generationId)));
  });
  return router;
}
