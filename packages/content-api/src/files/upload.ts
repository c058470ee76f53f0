import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import { BadRequestError, PayloadTooLargeError, ValidationError, type FileStorage } from '@muse/core';

export interface ReceivedUpload {
  id: string;
  name: string;
  contentType: string;
  size: number;
  visibility: 'private' | 'public';
}

/**
 * Streams the `file` part of a multipart body into storage under a new id, counting bytes on
 * the way. Above `maxBytes` the stored part is removed and 413 is thrown, so no half-written
 * content survives; the database row is the caller's, written only after this succeeds.
 */
export async function receiveUpload(
  req: Request,
  storage: FileStorage,
  maxBytes: number,
): Promise<ReceivedUpload> {
  // The whole body: the file and what goes beside it (framing, name, visibility).
  const bodyBudget = maxBytes + BESIDE_FILE_BYTES;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > bodyBudget) throw tooLarge(maxBytes);

  let parser: busboy.Busboy;
  try {
    // busboy reports the limit when a file reaches fileSize bytes: one more, so exactly maxBytes passes.
    // Filenames are UTF-8 (what browsers send), not latin1.
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { files: 1, fileSize: maxBytes + 1, fields: 10, fieldSize: FIELD_BYTES },
    });
  } catch {
    throw new BadRequestError('Send the file as multipart/form-data');
  }
  const fields: Record<string, string> = {};
  let stored: Promise<ReceivedUpload> | undefined;
  /** The file part on its way to storage, ended early when the body passes its budget. */
  let inFlight: PassThrough | undefined;
  let exceeded = false;

  parser.on('field', (name, value) => (fields[name] = value));
  parser.on('file', (field, stream, info) => {
    if (field !== 'file' || stored) return void stream.resume();
    const id = randomUUID();
    const body = new PassThrough();
    inFlight = body;
    // Storage may attach its reader only later (after creating folders); an early abort must not go unheard.
    body.on('error', () => {});
    let size = 0;
    stream.on('data', (chunk: Buffer) => (size += chunk.length));
    stream.on('error', (error) => body.destroy(error));
    stream.on('limit', () => {
      exceeded = true;
      body.destroy(tooLarge(maxBytes));
      stream.resume();
    });
    stream.pipe(body);
    stored = storage
      .put(id, body)
      .then(() => ({
        id,
        size,
        name: info.filename || 'upload',
        contentType: info.mimeType || 'application/octet-stream',
        visibility: 'private' as const,
      }))
      .catch(async (error: unknown) => {
        await storage.delete(id).catch(() => {});
        throw error;
      });
    stored.catch(() => {}); // awaited below; avoid an unhandled rejection meanwhile
  });

  await new Promise<void>((resolve, reject) => {
    // A chunked body declares no length: it is cut off as it passes the budget, unread beyond.
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= bodyBudget) return;
      exceeded = true;
      req.off('data', count).unpipe(parser).pause();
      inFlight?.destroy(tooLarge(maxBytes));
      reject(tooLarge(maxBytes));
    };
    req.on('data', count);
    parser.on('close', resolve);
    parser.on('error', () => reject(new BadRequestError('The multipart body is malformed')));
    req.pipe(parser);
  }).catch(async (error: unknown) => {
    // A file part stored, or on its way (stopped above, removed by its own catch), goes with the refusal.
    await stored?.then(
      (upload) => storage.delete(upload.id),
      () => {},
    );
    throw error;
  });
  if (!stored)
    throw new ValidationError('The upload has no file', [{ path: '/file', message: 'is required' }]);
  const upload = await stored.catch((error: unknown) => {
    if (exceeded) throw tooLarge(maxBytes);
    throw error;
  });
  if (exceeded) {
    await storage.delete(upload.id);
    throw tooLarge(maxBytes);
  }
  const visibility = fields.visibility ?? 'private';
  if (visibility !== 'private' && visibility !== 'public') {
    await storage.delete(upload.id);
    throw new ValidationError('The upload is not valid', [
      { path: '/visibility', message: 'must be private or public' },
    ]);
  }
  return { ...upload, visibility, name: (fields.name ?? upload.name).slice(0, 255) };
}

/** What a body may hold beside its file. */
const BESIDE_FILE_BYTES = 64 * 1024;
/** `name` is kept to 255 characters and `visibility` is a word: a field needs no more. */
const FIELD_BYTES = 4 * 1024;

function tooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The file is larger than the upload limit of ${maxBytes} bytes`);
}
