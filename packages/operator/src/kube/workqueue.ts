/**
 * A queue of object keys handled one at a time: a key added while queued is handled once; a
 * key added while being handled is handled again afterwards; a failed key comes back after an
 * exponential backoff of its own (other keys are not held up).
 */
export interface WorkQueueOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export type KeyHandler = (key: string) => Promise<void>;

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private processing: string | undefined;
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  private readonly handle: KeyHandler;

  constructor(handle: KeyHandler, options: WorkQueueOptions = {}) {
    this.handle = handle;
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
  }

  start(): void {
    this.running = true;
    this.kick();
  }

  /** Stops taking keys; resolves when the key being handled is done. */
  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.idle;
  }

  add(key: string): void {
    if (this.processing === key) {
      this.dirty.add(key);
      return;
    }
    this.queued.add(key);
    this.kick();
  }

  /** The delay before the next attempt of a key that failed `failures` times in a row. */
  backoffFor(failures: number): number {
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.max(0, failures - 1));
  }

  private retryLater(key: string): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const delay = this.backoffFor(failures);
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.add(key);
      }, delay).unref(),
    );
    return delay;
  }

  private kick(): void {
    if (!this.running || this.processing !== undefined) return;
    const [key] = this.queued;
    if (key === undefined) return;
    this.queued.delete(key);
    this.processing = key;
    this.idle = this.handle(key).then(
      () => {
        this.failures.delete(key);
        this.finish(key);
      },
      () => {
        if (this.running) this.retryLater(key);
        this.finish(key);
      },
    );
  }

  private finish(key: string): void {
    this.processing = undefined;
    if (this.dirty.delete(key)) this.queued.add(key);
    this.kick();
  }
}
