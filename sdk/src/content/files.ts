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

export interface FileHelpers {
  get(id: string, options?: CallOptions): Promise<FileRecord>;
  /**
   * Resolves with the record once `completed`; throws GenerationFailedError (with `error_message`)
   * once `failed`, FileWaitTimeoutError when `timeout` passes first.
   */
  waitFor(id: string, options?: WaitOptions): Promise<FileRecord>;
  /** The file's content as a stream, through its signed download link (the bearer token is not sent there). */
  download(id: string, options?: CallOptions): Promise<ReadableStream<Uint8Array>>;
}

export function fileHelpers(api: TypedClient<paths>, transport: Transport, baseUrl: string): FileHelpers {
  const get = async (id: string, options: CallOptions = {}) =>
    (await api.GET('/api/v1/files/{file_id}', { params: { path: { file_id: id } }, ...options })).data;
  return {
    get,
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
    async download(id, options = {}) {
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
    },
  };
}
