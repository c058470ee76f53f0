import type { components, paths } from '../generated/content.ts';
import { FileWaitTimeoutError, GenerationFailedError, MuseError } from '../errors.ts';
import { sleep } from '../transport/sleep.ts';
import type { CallOptions, Transport } from '../transport/transport.ts';
import type { TypedClient } from '../typed-client.ts';

export type FileRecord = components['schemas']['File'];

export interface WaitOptions {
  signal?: AbortSignal;
  /** Called with the record whenever its status changes (and with the first one read). */
  onUpdate?(file: FileRecord): void;
  /** Milliseconds between two reads of the record (default 500). */
  pollInterval?: number;
  /** Milliseconds to wait at most (default: no limit); then FileWaitTimeoutError. */
  timeout?: number;
}

/**
 * A Node.js Writable as `files.downloadTo` uses it (`fs.createWriteStream(…)`, `process.stdout`),
 * described by shape so that the SDK needs no Node types.
 */
export interface NodeWritable {
  write(chunk: Uint8Array): boolean;
  end(callback?: (error?: unknown) => void): unknown;
  once(event: 'drain' | 'error', listener: (error?: unknown) => void): unknown;
  removeListener(event: 'drain' | 'error', listener: (error?: unknown) => void): unknown;
}

export interface DownloadToOptions extends CallOptions {
  /** End a Node destination when the content is written (default true; false for process.stdout). */
  end?: boolean;
}

export interface FileHelpers {
  get(id: string, options?: CallOptions): Promise<FileRecord>;
  /**
   * Resolves with the record once `completed`; throws GenerationFailedError (with `error_message`)
   * once `failed`, FileWaitTimeoutError when `timeout` passes first.
   */
  waitFor(id: string, options?: WaitOptions): Promise<FileRecord>;
  /** The file's content as a stream, through its signed download link (the bearer token is not sent there). */
  download(id: string, options?: CallOptions): Promise<ReadableStream<Uint8Array>>;
  /**
   * Writes the file's content into a Node.js Writable (respecting its backpressure) or a web
   * WritableStream, and resolves once it is all written (and the destination ended).
   */
  downloadTo(
    id: string,
    destination: NodeWritable | WritableStream<Uint8Array>,
    options?: DownloadToOptions,
  ): Promise<void>;
}

export function fileHelpers(api: TypedClient<paths>, transport: Transport, baseUrl: string): FileHelpers {
  const get = async (id: string, options: CallOptions = {}) =>
    (await api.GET('/api/v1/files/{file_id}', { params: { path: { file_id: id } }, ...options })).data;
  const download = async (id: string, options: CallOptions = {}) => {
    const file = await get(id, options);
    if (file.download_url === null)
      throw new MuseError(`File ${id} has no content to download yet (status ${file.status})`);
    const { data } = await transport({
      url: new URL(file.download_url, baseUrl).href,
      method: 'GET',
      headers: new Headers(),
      parseAs: 'stream',
      ...options,
    });
    return (data as ReadableStream<Uint8Array> | undefined) ?? new Response(new Uint8Array()).body!;
  };
  return {
    get,
    download,
    async waitFor(id, { signal, onUpdate, pollInterval = 500, timeout = Infinity } = {}) {
      const started = Date.now();
      let previous: string | undefined;
      for (;;) {
        const file = await get(id, signal ? { signal } : {});
        if (file.status !== previous) onUpdate?.(file);
        previous = file.status;
        if (file.status === 'completed') return file;
        if (file.status === 'failed') throw new GenerationFailedError(id, file.error_message);
        const elapsed = Date.now() - started;
        if (elapsed >= timeout) throw new FileWaitTimeoutError(file, timeout);
        await sleep(Math.min(pollInterval, timeout - elapsed), signal);
      }
    },
    async downloadTo(id, destination, { end = true, ...options } = {}) {
      const content = await download(id, options);
      if ('getWriter' in destination) {
        await content.pipeTo(destination, {
          preventClose: !end,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        return;
      }
      await writeInto(content, destination, end);
    },
  };
}

/** Copies a web stream into a Node Writable, waiting for `drain` when it asks to. */
async function writeInto(content: ReadableStream<Uint8Array>, destination: NodeWritable, end: boolean) {
  let failed: unknown;
  const onError = (error?: unknown) => (failed = error ?? new MuseError('the destination failed'));
  destination.once('error', onError);
  try {
    for await (const chunk of content) {
      if (failed) throw failed;
      if (!destination.write(chunk)) await settled(destination);
    }
    if (failed) throw failed;
    if (end)
      await new Promise<void>((resolve, reject) =>
        destination.end((error) => (error || failed ? reject(error ?? failed) : resolve())),
      );
  } finally {
    destination.removeListener('error', onError);
  }
}

/** Resolves on `drain`, rejects on `error`. */
function settled(destination: NodeWritable): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      destination.removeListener('error', onError);
      resolve();
    };
    const onError = (error?: unknown) => {
      destination.removeListener('drain', onDrain);
      reject(error ?? new MuseError('the destination failed'));
    };
    destination.once('drain', onDrain);
    destination.once('error', onError);
  });
}
