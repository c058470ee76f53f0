import type { Logger } from '@muse/core';
import type { Watch } from '@kubernetes/client-node';

export interface WatchedObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

export interface ListResult<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

export interface ResilientWatchOptions<T extends WatchedObject> {
  /** Name in logs and metrics, e.g. `generators/default`. */
  name: string;
  /** API path of the collection, e.g. `/apis/muse.dev/v1alpha1/namespaces/default/generators`. */
  path: string;
  list(): Promise<ListResult<T>>;
  watch: Watch;
  logger: Logger;
  /** Every object of a list (initial and periodic), then every change. */
  onList(items: T[]): void;
  onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
  /** A full re-list this often, whatever the watch says. */
  resyncMs: number;
  onRestart?(reason: string): void;
}

const MAX_RETRY_MS = 30_000;

/**
 * List-then-watch that never stays down: `@kubernetes/client-node`'s informers can stop
 * silently, so every end or error of the watch starts it again (from the last resource version,
 * or with a new list when that version is gone), with a backoff while the server refuses, and a
 * periodic full re-list catches anything a watch might have missed.
 */
export class ResilientWatch<T extends WatchedObject> {
  private resourceVersion: string | undefined;
  private abort: AbortController | undefined;
  private stopped = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;

  private readonly options: ResilientWatchOptions<T>;

  constructor(options: ResilientWatchOptions<T>) {
    this.options = options;
  }

  start(): void {
    this.stopped = false;
    void this.relistAndWatch();
    this.resyncTimer = setInterval(() => void this.resync(), this.options.resyncMs);
    this.resyncTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.resyncTimer);
    this.abort?.abort();
  }

  /** Drops the current watch connection (as a network failure would); it is re-established. */
  interrupt(): void {
    this.abort?.abort();
  }

  private async resync(): Promise<void> {
    try {
      const { items } = await this.options.list();
      this.options.onList(items);
    } catch (error) {
      this.options.logger.warn({ err: error, watch: this.options.name }, 'periodic re-list failed');
    }
  }

  private async relistAndWatch(): Promise<void> {
    if (this.stopped) return;
    try {
      const list = await this.options.list();
      this.resourceVersion = list.metadata?.resourceVersion;
      this.options.onList(list.items);
      await this.startWatch();
    } catch (error) {
      this.retry(`list failed: ${(error as Error).message}`, true);
    }
  }

  private async startWatch(): Promise<void> {
    if (this.stopped) return;
    const query = {
      allowWatchBookmarks: true,
      resourceVersion: this.resourceVersion,
      // The server ends the watch after a while; it is then restarted like any other end.
      timeoutSeconds: 240 + Math.floor(Math.random() * 120),
    };
    let ended = false;
    const done = (error: unknown) => {
      if (ended) return;
      ended = true;
      if (this.stopped) return;
      const gone = (error as { code?: number; statusCode?: number } | null)?.statusCode === 410;
      this.retry(error ? `watch failed: ${(error as Error).message ?? String(error)}` : 'watch ended', gone);
    };
    try {
      this.abort = await this.options.watch.watch(
        this.options.path,
        query,
        (type, object: T & { code?: number; kind?: string }) => {
          if (type === 'ERROR') {
            // 410 Gone: our resource version is too old; start over with a list.
            if (object.code === 410) this.resourceVersion = undefined;
            return;
          }
          const version = object.metadata?.resourceVersion;
          if (version) this.resourceVersion = version;
          if (type === 'BOOKMARK') return;
          this.failures = 0;
          this.options.onEvent(type as 'ADDED' | 'MODIFIED' | 'DELETED', object);
        },
        done,
      );
      // Connected: a later end is routine (server timeout, 30 s of silence), not a failure streak.
      if (!ended) this.failures = 0;
    } catch (error) {
      done(error);
    }
  }

  private retry(reason: string, relist: boolean): void {
    if (this.stopped) return;
    this.options.onRestart?.(reason);
    const delay = Math.min(MAX_RETRY_MS, 200 * 2 ** this.failures);
    this.failures = Math.min(this.failures + 1, 10);
    this.options.logger.debug({ watch: this.options.name, reason, delay }, 'restarting watch');
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (relist || !this.resourceVersion) void this.relistAndWatch();
      else void this.startWatch();
    }, delay);
  }
}
