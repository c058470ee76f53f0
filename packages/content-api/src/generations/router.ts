import { Router } from 'express';
import { requestLog } from '@muse/core';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { requirePermission } from '../auth/authenticate.ts';
import type { GenerationKind } from '../generators/parameters.ts';
import { cancelGeneration } from './cancel.ts';
import { submitGeneration } from './submit.ts';
import type { WorkflowStarter } from './starter.ts';

/**
 * `POST /api/v1/generations/{images|videos|texts}`: 202 with the pending result files;
 * `POST /api/v1/generations/{id}/cancel`: failed, refunded, upstream stopped.
 */
export function generationsRouter(context: ContentContext, starter: WorkflowStarter): Router {
  const router = Router();
  const submitRoute = (
    path: '/api/v1/generations/images' | '/api/v1/generations/videos' | '/api/v1/generations/texts',
    kind: GenerationKind,
  ) =>
    route(router, 'post', path, async (req, res) => {
      const user = requirePermission(req, 'generation', 'create', 'own');
      const key = req.get('Idempotency-Key') || undefined;
      // Its log lines (a workflow that could not start) name the request.
      const deps = { ...context, logger: requestLog(res, context.logger), starter };
      res.status(202).json(await submitGeneration(deps, user, kind, req.body, key));
    });
  submitRoute('/api/v1/generations/images', 'image');
  submitRoute('/api/v1/generations/videos', 'video');
  submitRoute('/api/v1/generations/texts', 'text');
  route(router, 'post', '/api/v1/generations/{generation_id}/cancel', async (req, res) => {
    const user = requirePermission(req, 'generation', 'create', 'own');
    res.json(await cancelGeneration(context, user, String(req.params.generation_id)));
  });
  return router;
}
