import busboy from 'busboy';
import type { RequestHandler } from 'express';
import { JsonableError } from './errors.ts';

const MAX_FIELD_BYTES = 1024 * 1024;

/**
 * Reads multipart/form-data bodies (what zulip-js and Zulip's Python client send for POST)
 * into `req.body` as plain fields. Files are not accepted by these endpoints.
 */
export const multipartFields: RequestHandler = (req, _res, next) => {
  if (!req.is('multipart/form-data')) return next();
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fieldSize: MAX_FIELD_BYTES, files: 0 } });
  } catch {
    return next(new JsonableError('Malformed multipart body'));
  }
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
  parser.on('filesLimit', () => fail(new JsonableError('File uploads are not accepted here')));
  parser.on('error', () => fail(new JsonableError('Malformed multipart body')));
  parser.on('close', () => {
    if (failed) return;
    req.body = fields;
    next();
  });
  req.pipe(parser);
};
