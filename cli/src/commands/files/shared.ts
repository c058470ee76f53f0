import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { lookup as contentTypeOf } from 'mime-types';
import type { FileRecord } from '@muse/sdk';
import type { Column } from '../../io/output.ts';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode, usageError } from '../../errors.ts';

export const FILE_COLUMNS: Column<FileRecord>[] = [
  { header: 'ID', value: (file) => file.id },
  { header: 'NAME', value: (file) => file.name },
  { header: 'STATUS', value: (file) => file.status },
  { header: 'TYPE', value: (file) => file.content_type },
  { header: 'SIZE', value: (file) => file.size },
  { header: 'VISIBILITY', value: (file) => file.visibility },
  { header: 'CREATED', value: (file) => file.created_at },
];

/**
 * Uploads a local file (multipart `file` part, its content type guessed from the extension, as
 * curl -F does) and answers its record.
 */
export async function uploadFile(
  f: Factory,
  localPath: string,
  options: { name?: string; visibility?: 'private' | 'public' } = {},
): Promise<FileRecord> {
  let content: Buffer;
  try {
    content = fs.readFileSync(localPath);
  } catch (error) {
    throw new CliError(
      `cannot read ${localPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        exitCode: (error as NodeJS.ErrnoException).code === 'ENOENT' ? ExitCode.notFound : ExitCode.error,
        code: 'unreadable_file',
      },
    );
  }
  const form = new FormData();
  const type = contentTypeOf(localPath) || 'application/octet-stream';
  form.set('file', new Blob([content], { type }), path.basename(localPath));
  if (options.name) form.set('name', options.name);
  if (options.visibility) form.set('visibility', options.visibility);
  const { data } = await f.content().POST('/api/v1/files', {
    body: form as never,
    bodySerializer: (body: unknown) => body as FormData,
  });
  return data;
}

/**
 * Writes a completed file's content into `dir` under its name (made safe for the file system);
 * an existing file of that name gets the id prefixed rather than overwritten. Answers the path.
 */
export async function downloadFile(f: Factory, file: FileRecord, dir: string): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  const safe = path.basename(file.name).replace(/[^\w.\- ]/g, '_') || file.id;
  let target = path.join(dir, safe);
  if (fs.existsSync(target)) target = path.join(dir, `${file.id}-${safe}`);
  await f.content().files.downloadTo(file.id, fs.createWriteStream(target, { flags: 'wx' }), {
    signal: f.interrupt,
  });
  return target;
}

/** `--out -`: the contents go to standard output, and nothing else does. */
export const STDOUT = '-';

/**
 * Streams a completed file's content to standard output, as it arrives; answers its last byte
 * (undefined when empty), so that a text can be ended with a newline.
 */
export async function writeToStdout(f: Factory, file: FileRecord): Promise<number | undefined> {
  const stream = await f.content().files.download(file.id, { signal: f.interrupt });
  let last: number | undefined;
  for await (const chunk of Readable.fromWeb(stream as NodeReadableStream) as AsyncIterable<Buffer>) {
    if (chunk.length) last = chunk[chunk.length - 1];
    if (!f.io.stdout.write(chunk)) await once(f.io.stdout, 'drain');
  }
  return last;
}

/** Local paths look like paths; everything else is taken as a file id. */
export function isLocalPath(reference: string): boolean {
  return reference.includes('/') || reference.includes('\\') || fs.existsSync(reference);
}

export function requireDirectory(dir: string | undefined): string | undefined {
  if (dir !== undefined && dir !== STDOUT && fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) {
    throw usageError(`${dir} is not a directory`);
  }
  return dir;
}
