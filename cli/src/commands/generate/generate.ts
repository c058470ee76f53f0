import {
  GenerationFailedError,
  type FileRecord,
  type GenerationKind,
  type GenerationRequest,
} from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { CliError } from '../../errors.ts';
import type { Column } from '../../io/output.ts';
import { parseSettings } from '../shared/pairs.ts';
import { generatorId, type GeneratorKind } from '../generators/shared.ts';
import {
  FILE_COLUMNS,
  STDOUT,
  downloadFile,
  isLocalPath,
  requireDirectory,
  uploadFile,
  writeToStdout,
} from '../files/shared.ts';

/** What every `muse generate <kind>` accepts; the kind-specific fields are only set by their verb. */
export interface GenerateOptions {
  generator: string;
  prompt?: string;
  count?: number;
  aspectRatio?: string;
  duration?: number;
  /** File ids or local paths (uploaded first). */
  reference?: string[];
  /** Further generator parameters, KEY=VALUE. */
  param?: string[];
  wait?: boolean;
  out?: string;
  idempotencyKey?: string;
}

const PLURAL: Record<GeneratorKind, GenerationKind> = { image: 'images', video: 'videos', text: 'texts' };

/**
 * Submits a generation; with `--wait` (or `--out`) waits until its files are done (the server's
 * wait first, then polling with progress), and downloads them into `--out` (`-`: to stdout). A
 * waited text is printed (its record with `-o json`/`yaml`). A failed file ends
 * the command with its error message (the task was refunded) and exit code 1; a 402 exits 5;
 * an upstream timeout (504) or rate limit (529) says what to do.
 */
export async function generate(kind: GeneratorKind, options: GenerateOptions, f: Factory): Promise<void> {
  const out = requireDirectory(options.out);
  const generator_id = await generatorId(f, options.generator, { kind });
  const reference_file_ids = options.reference?.length ? await referenceIds(options.reference, f) : undefined;
  const body = {
    generator_id,
    // Without --prompt none is sent (JSON leaves out undefined): the generator's schema says whether it needs one.
    prompt: options.prompt as string,
    ...(options.count !== undefined ? { count: options.count } : {}),
    ...(options.aspectRatio !== undefined ? { aspect_ratio: options.aspectRatio } : {}),
    ...(options.duration !== undefined ? { duration: options.duration } : {}),
    ...(reference_file_ids ? { reference_file_ids } : {}),
  };
  const key = {
    parameters: parseSettings(options.param),
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
  };
  if (!options.wait && out === undefined) {
    const fileIds = await f.content().generations.create(PLURAL[kind], body, key);
    f.printer().notice(`Submitted; follow it with: muse files get ${fileIds[0]}`);
    if (f.printer().format === 'table') for (const id of fileIds) f.printer().line(id);
    else f.printer().data({ file_ids: fileIds, status: 'pending' });
    return;
  }
  const files = await submitAndWait(PLURAL[kind], body, key, options.count ?? 1, f);
  if (out === STDOUT || (kind === 'text' && out === undefined && f.printer().format === 'table')) {
    await printContents(files, f);
    return;
  }
  const saved = new Map<string, string>();
  if (out !== undefined) {
    for (const file of files) saved.set(file.id, await downloadFile(f, file, out));
  }
  type Row = FileRecord & { path?: string };
  const rows: Row[] = files.map((file) =>
    saved.has(file.id) ? { ...file, path: saved.get(file.id)! } : file,
  );
  const savedAs: Column<Row> = { header: 'SAVED AS', value: (row) => row.path };
  f.printer().list(rows, out !== undefined ? [...FILE_COLUMNS, savedAs] : FILE_COLUMNS);
}

/**
 * Submits with the server's wait (`Prefer: wait`, so an upstream timeout or rate limit answers
 * 504 or 529 at once, saying what to do), showing the files pending meanwhile; a task still
 * running when that wait ends is followed by polling.
 */
async function submitAndWait(
  kind: GenerationKind,
  body: GenerationRequest<GenerationKind>,
  key: { idempotencyKey?: string; parameters: Record<string, unknown> },
  count: number,
  f: Factory,
): Promise<FileRecord[]> {
  const progress = f.progress();
  const asked = kind === 'images' ? count : 1;
  progress.update(summary(Array.from({ length: asked }, () => 'pending')));
  let result;
  try {
    result = await f.content().generations.create(kind, body, { ...key, wait: true, signal: f.interrupt });
  } catch (error) {
    progress.done();
    if (!f.interrupt.aborted) throw error;
    throw new CliError('stopped waiting; the generation goes on if it was accepted', {
      code: 'interrupted',
      hint: 'see it with muse files list',
    });
  }
  if (!result.files) {
    progress.done();
    return waitForFiles(result.file_ids, f);
  }
  progress.update(summary(result.files.map((file) => file.status)));
  progress.done();
  const failed = result.files.find((file) => file.status === 'failed');
  if (failed) throw new GenerationFailedError(failed.id, failed.error_message ?? null);
  return result.files;
}

/** The files' contents on stdout, one after the other; a text ends with a newline. */
async function printContents(files: readonly FileRecord[], f: Factory): Promise<void> {
  for (const file of files) {
    const last = await writeToStdout(f, file);
    if (file.content_type.startsWith('text/') && last !== undefined && last !== 0x0a) f.io.stdout.write('\n');
  }
}

/** Uploads the local paths among the references; file ids pass through. */
async function referenceIds(references: readonly string[], f: Factory): Promise<string[]> {
  const ids: string[] = [];
  for (const reference of references) {
    if (!isLocalPath(reference)) {
      ids.push(reference);
      continue;
    }
    const file = await uploadFile(f, reference);
    f.printer().notice(`Uploaded ${reference} as ${file.id}`);
    ids.push(file.id);
  }
  return ids;
}

/** Follows every file to its end, one progress display for all of them. */
async function waitForFiles(ids: readonly string[], f: Factory): Promise<FileRecord[]> {
  const progress = f.progress();
  const status = new Map(ids.map((id) => [id, 'pending']));
  const show = () => progress.update(summary([...status.values()]));
  show();
  try {
    return await Promise.all(
      ids.map((id) =>
        f.content().files.waitFor(id, {
          signal: f.interrupt,
          pollInterval: 500,
          onUpdate: (file) => {
            status.set(id, file.status);
            show();
          },
        }),
      ),
    );
  } catch (error) {
    if (f.interrupt.aborted) {
      throw new CliError('stopped waiting; the generation goes on', {
        code: 'interrupted',
        hint: `see it with muse files get ${ids[0]}`,
      });
    }
    if (error instanceof GenerationFailedError) status.set(error.fileId, 'failed');
    throw error;
  } finally {
    progress.done();
  }
}

/** `processing` for one file; `3 files: 1 completed, 2 processing` for several. */
function summary(statuses: readonly string[]): string {
  if (statuses.length === 1) return `generating: ${statuses[0]}`;
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  const order = ['completed', 'processing', 'pending', 'failed'];
  const parts = order.filter((s) => counts.has(s)).map((s) => `${counts.get(s)} ${s}`);
  return `generating ${statuses.length} files: ${parts.join(', ')}`;
}
