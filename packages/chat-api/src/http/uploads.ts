import { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { openUpload } from '../domain/actions/uploads.ts';
import type { ChatRuntime } from '../views/context.ts';
import { authenticate } from './auth.ts';

/**
 * GET /user_uploads/<realm id>/<…>/<name>: the file itself (outside /api/v1, as in Zulip), with
 * the API's Basic auth. 404 "File not found"; 403 for whoever may not see it.
 */
export function uploadDownloadRouter(runtime: ChatRuntime): Router {
  const router = Router();
  router.get(
    /^\/user_uploads\/(\d+\/.+)$/,
    authenticate(runtime.db, runtime.config),
    async (req, res, next) => {
      try {
        const pathId = decodeURIComponent((req.params as Record<string, string>)[0]!);
        const { attachment, contents } = await openUpload(res.locals.actor, runtime.storage, pathId);
        res.set({
          'Content-Type': attachment.content_type,
          'Content-Length': String(attachment.size),
          'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(attachment.file_name)}`,
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'private, max-age=0',
        });
        await pipeline(contents, res);
      } catch (error) {
        next(error);
      }
    },
  );
  return router;
}
