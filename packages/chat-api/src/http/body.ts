import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import busboy from 'busboy';
import type { Request, Response } from 'express';
import { JsonableError } from './errors.ts';

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * The budget of a request body (README "Request bodies"). A body is read only on a known route,
 * after its caller is known, and never past these.
 */
export const BODY_LIMITS = {
  /** A whole body on a route that takes no file (a form, urlencoded or multipart). */
  bytes: 2 * MIB,
  /** Fields (parameters) of one form: the largest endpoint declares 58. */
  fields: 200,
  /** One field's value. */
  fieldBytes: 1 * MIB,
  /** On a route that takes a file: what a body may hold beside the file (framing, fields). */
  besideFileBytes: 64 * KIB,
  /** The most a file part may ever hold, whatever an organization allows. */
  fileBytes: 100 * MIB,
  /** A file part past this size is spooled to a temporary file rather than held in memory. */
  fileInMemoryBytes: 64 * KIB,
} as const;

/** A file part of a multipart body: in memory when small, in a temporary file otherwise. */
export interface FilePart {
  filename: string;
  mimeType: string;
  /** Longer than the route's file limit: the rest was discarded. */
  truncated: boolean;
  /** The contents, from memory or the temporary file (removed when the response closes). */
  open(): Readable;
}

const filesOf = new WeakMap<Request, FilePart[]>();

/** The file parts of a request to a route that takes files (see `readForm`). */
export const uploadedFiles = (req: Request): FilePart[] => filesOf.get(req) ?? [];

const tooLarge = (limit: number) =>
  new JsonableError(`The request body is larger than the limit of ${limit} bytes`, { status: 413 });

/**
 * Reads a form body (application/x-www-form-urlencoded or multipart/form-data, what Zulip's
 * clients send) into `req.body` as plain fields, within the budget: a declared Content-Length
 * over `maxBytes` is refused before a byte is read, and a body that grows past it while streaming
 * (chunked) is cut off; so are too many fields and an over-long field. File parts are taken only
 * when `fileLimit` is given (one per request, each spooled past a small size; see FilePart).
 * Any other content type is left unread.
 */
export async function readForm(req: Request, res: Response, fileLimit?: number): Promise<void> {
  const maxBytes = fileLimit === undefined ? BODY_LIMITS.bytes : fileLimit + BODY_LIMITS.besideFileBytes;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (!req.is(['application/x-www-form-urlencoded', 'multipart/form-data'])) return;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // Filenames in UTF-8, as browsers and Zulip's clients send them (busboy's default is latin1).
      defParamCharset: 'utf8',
      limits: {
        fields: BODY_LIMITS.fields,
        fieldSize: BODY_LIMITS.fieldBytes,
        parts: BODY_LIMITS.fields + 1,
        files: fileLimit === undefined ? 0 : 1,
        // busboy stops a file when it reaches fileSize: one more, so exactly fileLimit passes.
        ...(fileLimit === undefined ? {} : { fileSize: fileLimit + 1 }),
      },
    });
  } catch {
    throw new JsonableError('Malformed form body');
  }
  const files: FilePart[] = [];
  filesOf.set(req, files);
  req.body = await parse(req, res, parser, maxBytes, files);
}

function parse(
  req: Request,
  res: Response,
  parser: busboy.Busboy,
  maxBytes: number,
  files: FilePart[],
): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const spools: Spool[] = [];
    const spooling: Promise<void>[] = [];
    let received = 0;
    let settled = false;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) fail(tooLarge(maxBytes));
    };
    const gone = () => {
      if (!req.complete) fail(new JsonableError('The request body was cut off'));
    };
    // Stops reading: what is left of the body stays unread (errors.ts closes the connection).
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', count);
      req.unpipe(parser);
      req.pause();
      parser.removeAllListeners().on('error', () => {});
      for (const spool of spools) spool.destroy();
      reject(error);
    };
    req.on('data', count);
    req.once('close', gone);
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated)
        return fail(new JsonableError(`${name} is too long (limit: ${BODY_LIMITS.fieldBytes} bytes)`));
      fields[name] = value;
    });
    parser.on('file', (_name, stream, info) => {
      const spool = new Spool();
      spools.push(spool);
      // Removed once the answer is sent, whether the view used it or not.
      res.once('close', () => void spool.discard());
      const part: FilePart = {
        filename: info.filename ?? '',
        mimeType: info.mimeType,
        truncated: false,
        open: () => spool.open(),
      };
      files.push(part);
      stream.on('limit', () => (part.truncated = true));
      spooling.push(
        new Promise<void>((done, broken) => {
          stream.pipe(spool).once('finish', done).once('error', broken);
          stream.once('error', broken);
        }),
      );
    });
    const tooMany = () =>
      fail(new JsonableError(`Too many form fields (limit: ${BODY_LIMITS.fields})`, { status: 413 }));
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', () =>
      fail(
        new JsonableError(
          files.length ? 'You may only upload one file at a time' : 'File uploads are not accepted here',
        ),
      ),
    );
    parser.on('error', () => fail(new JsonableError('Malformed form body')));
    parser.on('close', () => {
      Promise.all(spooling).then(
        () => {
          if (settled) return;
          settled = true;
          req.off('close', gone);
          resolve(fields);
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    });
    req.pipe(parser);
  });
}

/**
 * A file part's bytes: in memory up to BODY_LIMITS.fileInMemoryBytes, then in a temporary file
 * (only its owner may read it), so a large upload costs disk, not the process's memory.
 */
class Spool extends Writable {
  private size = 0;
  private memory: Buffer[] = [];
  private disk?: WriteStream;
  private readonly file = path.join(tmpdir(), `muse-chat-upload-${randomUUID()}`);

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.size += chunk.length;
    if (!this.disk && this.size <= BODY_LIMITS.fileInMemoryBytes) {
      this.memory.push(chunk);
      return done();
    }
    if (!this.disk) {
      this.disk = createWriteStream(this.file, { flags: 'wx', mode: 0o600 });
      this.disk.on('error', (error) => this.destroy(error));
      this.disk.write(Buffer.concat(this.memory));
      this.memory = [];
    }
    if (this.disk.write(chunk)) done();
    else this.disk.once('drain', () => done());
  }

  override _final(done: (error?: Error | null) => void): void {
    if (!this.disk) return done();
    this.disk.end(() => done());
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.disk?.destroy();
    void this.discard().then(() => done(error));
  }

  open(): Readable {
    return this.disk ? createReadStream(this.file) : Readable.from([Buffer.concat(this.memory)]);
  }

  /** Removes the temporary file (an open reader keeps reading what it opened). */
  async discard(): Promise<void> {
    if (this.disk) await rm(this.file, { force: true });
  }
}
