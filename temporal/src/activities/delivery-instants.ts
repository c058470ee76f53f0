/**
 * The scheduled deliveries one worker process is sending, by the instant each is due. At an
 * instant many fall due at once (a thousand due in one second); an attempt that has sent its
 * message holds its completion until none due at or before its instant is still sending here,
 * so that Temporal's bookkeeping of the finished ones (activity completions, then a workflow task
 * and a workflow completion each, in the server and in this worker) runs after the instant's
 * sends instead of beside them on the same cores. Only speed depends on this: the database
 * transaction is what makes a delivery once-only, and a hold always ends (see `settled`).
 */
export interface DeliveryInstants {
  /** An attempt that will send: it counts as sending from `dueAt` (its row's time) to `done`. */
  begin(): SendingAttempt;
  /**
   * Resolves once nothing due at or before `dueAtMs` is sending in this process, or after
   * `maxMs`, or when `signal` aborts (the attempt is cancelled or the worker stops).
   */
  settled(dueAtMs: number, maxMs: number, signal?: AbortSignal): Promise<void>;
}

export interface SendingAttempt {
  /** The instant the attempt waits for or sends at; again when an edit moves it. */
  dueAt(ms: number): void;
  /** Sent, refused, or failed: the attempt no longer holds back anyone's completion. */
  done(): void;
  /** The instant it was last given, if any. */
  readonly dueAtMs: number | undefined;
}

export function createDeliveryInstants(): DeliveryInstants {
  /** Attempts still sending, by instant (ms): a handful of distinct instants at most. */
  const sending = new Map<number, number>();
  const holders = new Set<{ dueAtMs: number; release: () => void }>();

  const add = (ms: number, n: number) => {
    const count = (sending.get(ms) ?? 0) + n;
    if (count > 0) return void sending.set(ms, count);
    sending.delete(ms);
    // An instant is clear: release whoever waited for it and everything before it.
    const earliest = Math.min(...sending.keys());
    for (const holder of holders) if (holder.dueAtMs < earliest) holder.release();
  };

  return {
    begin() {
      let current: number | undefined;
      let finished = false;
      return {
        dueAt(ms) {
          if (finished || ms === current) return;
          if (current !== undefined) add(current, -1);
          current = ms;
          add(ms, 1);
        },
        done() {
          if (finished) return;
          finished = true;
          if (current !== undefined) add(current, -1);
        },
        get dueAtMs() {
          return current;
        },
      };
    },

    settled(dueAtMs, maxMs, signal) {
      const blocked = [...sending.keys()].some((ms) => ms <= dueAtMs);
      if (!blocked || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const holder = {
          dueAtMs,
          release: () => {
            holders.delete(holder);
            clearTimeout(timeout);
            signal?.removeEventListener('abort', holder.release);
            resolve();
          },
        };
        const timeout = setTimeout(holder.release, maxMs);
        signal?.addEventListener('abort', holder.release, { once: true });
        holders.add(holder);
      });
    },
  };
}
