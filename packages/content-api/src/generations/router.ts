import { requestLog } from '@muse/core';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { requirePermission } from '../auth/authenticate.ts';
import type { GenerationKind } from '../generators/parameters.ts';
import { cancelGeneration } from './cancel.ts';
import { submitGeneration } from './submit.ts';
import type { WorkflowStarter } from './starter.ts';
import { preferredWait, refuseUpstreamFailure, submitAndWait } from './wait.ts';
import { presentFile } from '../files/files.ts';
import { linkOrigin } from '../http/link-origin.ts';
import { createLinkSigner } from '../files/signed-links.ts';

/**
 * `POST /api/v1/generations/{images|videos|texts}`: 202 with the pending result files, or with
 * `Prefer: wait[=N]` the finished records (200), 504 or 529 when the task ends within the wait;
 * `POST /api/v1/generations/{id}/cancel`: failed, refunded, upstream stopped.
 */
export function generationsRoutes(context: ContentContext, starter: WorkflowStarter): Routes {
  const routes = new Routes();
  const links = createLinkSigner(
    context.config.MUSE_JWT_SECRET!,
    context.config.MUSE_DOWNLOAD_URL_TTL_SECONDS,
  );
  const submitRoute = (
    path: '/api/v1/generations/images' | '/api/v1/generations/videos' | '/api/v1/generations/texts',
    kind: GenerationKind,
  ) =>
    route(routes, 'post', path, async (req, res) => {
      const user = requirePermission(req, 'generation', 'create', 'own');
      const key = req.get('Idempotency-Key') || undefined;
      // Its log lines (a workflow that could not start) name the request.
      const deps = { ...context, logger: requestLog(res, context.logger), starter };
      const submit = () => submitGeneration(deps, user, kind, req.body, key);
      const wait = preferredWait(req.get('Prefer'));
      if (wait === undefined) return void res.status(202).json((await submit()).answer);

      res.set('Preference-Applied', `wait=${wait}`);
      const { submitted, end } = await submitAndWait(context, user.id, wait, submit);
      if (!end) return void res.status(202).json(submitted.answer);
      await refuseUpstreamFailure(context.db, end);
      const origin = linkOrigin(context.config.MUSE_PUBLIC_URL, req);
      res.status(200).json({
        file_ids: submitted.answer.file_ids,
        status: end.status,
        files: end.files.map((file) => presentFile(file, (id) => `${origin}${links.sign(id)}`)),
      });
    });
  submitRoute('/api/v1/generations/images', 'image');
  submitRoute('/api/v1/generations/videos', 'video');
  submitRoute('/api/v1/generations/texts', 'text');
  route(routes, 'post', '/api/v1/generations/{generation_id}/cancel', async (req, res) => {
    const user = requirePermission(req, 'generation', 'create', 'own');
    res.json(await cancelGeneration(context, user, String(req.params.generation_id)));
  });
  return routes;
}
