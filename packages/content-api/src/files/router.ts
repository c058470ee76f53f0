import type { Request } from 'express';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  uploadedContentHeaders,
  type Sequelize,
  exec,
  one,
  rows,
} from '@muse/core';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { linkOrigin } from '../http/link-origin.ts';
import { Routes } from '../http/routes.ts';
import { currentUser, requirePermission, type CurrentUser } from '../auth/authenticate.ts';
import { authorizeListScope, listRows, parseListQuery } from '../listing/listing.ts';
import { can } from '../permissions/permissions.ts';
import { readServerSettings } from '../server-config/server-config.ts';
import { findFile, presentFile, readableFile, type FileRow } from './files.ts';
import { createLinkSigner } from './signed-links.ts';
import { receiveUpload } from './upload.ts';

/**
 * Files: uploads and generation results. Reading follows the scope rules (own, public, any
 * for administrators); a completed file carries a signed `download_url` that needs no token.
 */
export function filesRoutes(context: ContentContext): Routes {
  const routes = new Routes();
  const { db, storage, config } = context;
  const links = createLinkSigner(config.MUSE_JWT_SECRET!, config.MUSE_DOWNLOAD_URL_TTL_SECONDS);
  const present = (req: Pick<Request, 'protocol' | 'get'>, row: FileRow) => {
    const origin = linkOrigin(config.MUSE_PUBLIC_URL, req);
    return presentFile(row, (id) => `${origin}${links.sign(id)}`);
  };

  route(routes, 'get', '/api/v1/files', async (req, res) => {
    const query = parseListQuery(req.query);
    const user = authorizeListScope(req, 'file', query.scope);
    const rows = await listRows<FileRow>(db, { from: 'content.files' }, query, user);
    res.json(rows.map((row) => present(req, row)));
  });

  route(routes, 'post', '/api/v1/files', async (req, res) => {
    const user = requirePermission(req, 'file', 'create', 'own');
    const { max_upload_bytes } = await readServerSettings(db);
    const upload = await receiveUpload(req, storage, max_upload_bytes);
    const [row] = await rows<FileRow>(
      db,
      `INSERT INTO content.files (id, owner_id, visibility, name, content_type, size, storage_key, source, status)
         VALUES (:id, :ownerId, :visibility, :name, :contentType, :size, :id, 'upload', 'completed') RETURNING *`,
      { ...upload, ownerId: user.id },
    ).catch(async (error: unknown) => {
      await storage.delete(upload.id);
      throw error;
    });
    res.status(201).json(present(req, row!));
  });

  route(routes, 'get', '/api/v1/files/{file_id}', async (req, res) => {
    res.json(present(req, await readableFile(db, currentUser(req), req.params.file_id)));
  });

  route(routes, 'patch', '/api/v1/files/{file_id}', async (req, res) => {
    const file = await modifiableFile(db, currentUser(req), req.params.file_id, 'update');
    const body = req.body;
    const row = await one<FileRow>(
      db,
      `UPDATE content.files SET name = COALESCE(:name, name), visibility = COALESCE(:visibility, visibility), updated_at = now()
        WHERE id = :id RETURNING *`,
      { id: file.id, name: body.name ?? null, visibility: body.visibility ?? null },
    );
    if (!row) throw new NotFoundError('No such file');
    res.json(present(req, row));
  });

  route(routes, 'delete', '/api/v1/files/{file_id}', async (req, res) => {
    const file = await modifiableFile(db, currentUser(req), req.params.file_id, 'delete');
    if (file.status === 'pending' || file.status === 'processing') {
      throw new ConflictError('The file is still being generated; delete it once it is completed or failed');
    }
    await exec(db, 'DELETE FROM content.files WHERE id = :id', { id: file.id });
    if (file.storage_key) await storage.delete(file.storage_key);
    res.status(204).end();
  });

  // Public: the signature is the authorisation. A bad or expired one answers 403; a genuine
  // link to a file deleted since answers 404.
  route(routes, 'get', '/api/v1/files/{file_id}/content', async (req, res) => {
    const { expires, signature } = req.query;
    if (!links.verify(req.params.file_id, String(expires), String(signature))) {
      throw new ForbiddenError(
        'The download link is invalid or has expired; read the file record for a fresh one',
      );
    }
    const file = await findFile(db, req.params.file_id);
    if (!file?.storage_key || file.status !== 'completed') throw new NotFoundError('No such file');
    const stream = await storage.get(file.storage_key);
    res.set({
      // Uploaded content (text/html, SVG) must never run as a page of our origin.
      ...uploadedContentHeaders(file.content_type),
      'Content-Length': String(file.size),
      'Content-Disposition': `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      'Cache-Control': 'private, max-age=300',
    });
    stream.on('error', (error) => res.destroy(error));
    stream.pipe(res);
  });

  return routes;
}

/**
 * The owner changes their file with the matching own permission; administrators change any.
 * Another user's public file answers 403 (it is visible); their private one the usual 404.
 */
async function modifiableFile(
  db: Sequelize,
  user: CurrentUser,
  id: string,
  operation: 'update' | 'delete',
): Promise<FileRow> {
  const file = await findFile(db, id);
  if (!file) throw new NotFoundError('No such file');
  if (user.isAdmin) return file;
  if (file.owner_id === user.id) {
    if (!can(user, 'file', operation, 'own'))
      throw new ForbiddenError(`Missing permission file:${operation}:own`);
    return file;
  }
  if (file.visibility === 'public')
    throw new ForbiddenError("Only the owner may change another user's public file");
  throw new NotFoundError('No such file');
}
