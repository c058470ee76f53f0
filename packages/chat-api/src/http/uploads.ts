import { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { uploadedContentHeaders } from '@muse/core';
import { openUpload } from '../domain/actions/uploads.ts';
import type { ChatRuntime } from '../views/context.ts';
import { authenticate } from './auth.ts';
import { notFound } from './errors.ts';

const PREFIX = '/user_uploads/';

/** The path id in a request's path, percent-decoded once; a bad escape names no file. */
function pathIdOf(path: string): string {
  try {
    return decodeURIComponent(path.slice(PREFIX.length));
  } catch {
    throw notFound('File not found');
  }
}

/**
 * GET /user_uploads/<realm id>/<…>/<name>: the file itself (outside /api/v1, as in Zulip), with
 * the API's Basic auth. 404 "File not found"; 403 for whoever may not see it. The route has no
 * capture group: Express would decode it, and the path must be decoded exactly once
 * (`x%252Ehtml` names `x%2Ehtml`, not `x.html`).
 */
export function uploadDownloadRouter(runtime: ChatRuntime): Router {
  const router = Router();
  router.get(/^\/user_uploads\/\d+\/./, authenticate(runtime.db, runtime.config), async (req, res, next) => {
    try {
      const { attachment, contents } = await openUpload(
        res.locals.actor,
        runtime.storage,
        pathIdOf(req.path),
      );
      res.set({
        ...uploadedContentHeaders(attachment.content_type),
        'Content-Length': String(attachment.size),
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(attachment.file_name)}`,
        'Cache-Control': 'private, max-age=0',
      });
      await pipeline(contents, res);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
