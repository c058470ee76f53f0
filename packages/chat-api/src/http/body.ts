import busboy from 'busboy';
import type { Request, RequestHandler } from 'express';
import { JsonableError } from './errors.ts';

const MAX_FIELD_BYTES = 1024 * 1024;

/** The most a file part may hold before it is cut off (organizations' own limits are lower). */
export const MAX_FILE_PART_BYTES = 100 * 1024 * 1024;

/** A file part of a multipart body, held in memory. */
export interface FilePart {
  filename: string;
  mimeType: string;
  data: Buffer;
  /** Longer than MAX_FILE_PART_BYTES: `data` is cut off. */
  truncated: boolean;
}

const filesOf = new WeakMap<Request, FilePart[]>();

/** The file parts of a request to a path that accepts files (see `multipartFields`). */
export const uploadedFiles = (req: Request): FilePart[] => filesOf.get(req) ?? [];

/**
 * Reads multipart/form-data bodies (what zulip-js and Zulip's Python client send for POST)
 * into `req.body` as plain fields. Files are accepted only on the paths in `filePaths`
 * (uploads); anywhere else a file part is refused.
 */
export const multipartFields =
  (filePaths: ReadonlySet<string> = new Set()): RequestHandler =>
  (req, _res, next) => {
    if (!req.is('multipart/form-data')) return next();
    const acceptsFiles = filePaths.has(req.path);
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fieldSize: MAX_FIELD_BYTES,
          ...(acceptsFiles ? { fileSize: MAX_FILE_PART_BYTES } : { files: 0 }),
        },
      });
    } catch {
      return next(new JsonableError('Malformed multipart body'));
    }
    const files: FilePart[] = [];
    filesOf.set(req, files);
    const fields: Record<string, string> = {};
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      next(error);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new JsonableError(`${name} is too long`));
      fields[name] = value;
    });
    parser.on('file', (_name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () =>
        files.push({
          filename: info.filename ?? '',
          mimeType: info.mimeType,
          data: Buffer.concat(chunks),
          truncated: (stream as { truncated?: boolean }).truncated === true,
        }),
      );
    });
    parser.on('filesLimit', () => fail(new JsonableError('File uploads are not accepted here')));
    parser.on('error', () => fail(new JsonableError('Malformed multipart body')));
    parser.on('close', () => {
      if (failed) return;
      req.body = fields;
      next();
    });
    req.pipe(parser);
  };
