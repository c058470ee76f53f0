/*
 * Wake-ups of waiting polls. After a transaction that wrote events (or deleted queues) commits, it
 * announces which queues, users or organizations have something new; a process's announcements are
 * merged and published once per turn of the event loop on the bus, and every process wakes its own
 * polls waiting on them. A poll always reads the log itself, so a lost wake-up only delays it to
 * its heartbeat; wake-ups lost while the bus reconnected (a database failover) wake every poll.
 */
import { EventBus, type MessageBus, type Sequelize } from '@muse/core';

/** Bus channel announcing "there is something new for these queues, users or organizations". */
const CHANNEL = 'chat_queue_events';
/** Beyond this many ids in one announcement, whole organizations (or everyone) are woken. */
export const MAX_IDS_PER_WAKE = 150;

export interface Wake {
  queues?: string[];
  realms?: { id: number; users?: number[] }[];
  all?: boolean;
}

interface Waiter {
  queueId: string;
  userId: number;
  realmId: number;
  done: () => void;
}

const notifiers = new WeakMap<Sequelize, QueueNotifier>();

/** Announces after commit: through this process's notifier (batched), else straight to the bus. */
export function wake(db: Sequelize, what: Wake): void {
  if (!what.all && !what.queues?.length && !what.realms?.length) return;
  const notifier = notifiers.get(db);
  if (notifier) notifier.announce(what);
  else void EventBus.publish(db, CHANNEL, what).catch(() => {}); // a catch-up read covers a lost one
}

/**
 * The process's side of wake-ups: announcements of the process are merged and published once
 * per turn of the event loop, after their transactions committed; polls waiting in the process
 * are woken by announcements from any process.
 */
export class QueueNotifier {
  private readonly byQueue = new Map<string, Set<Waiter>>();
  private readonly byUser = new Map<number, Set<Waiter>>();
  private readonly byRealm = new Map<number, Set<Waiter>>();
  private starting: Promise<() => Promise<void>> | undefined;
  private readonly bus: MessageBus;
  private outgoing: Wake[] = [];

  constructor(bus: MessageBus, db?: Sequelize) {
    this.bus = bus;
    if (db) notifiers.set(db, this);
  }

  /** Idempotent; every long-poll awaits it, so the subscription is in place before anyone waits. */
  async start(): Promise<void> {
    // After the bus lost its connection (a failover), every waiting poll reads its queue again.
    this.starting ??= this.bus
      .subscribe(
        CHANNEL,
        (payload) => this.wake(payload as Wake),
        () => this.wake({ all: true }),
      )
      .catch((error: unknown) => {
        this.starting = undefined; // the next long-poll tries again
        throw error;
      });
    await this.starting;
  }

  async stop(): Promise<void> {
    const unsubscribe = await this.starting;
    this.starting = undefined;
    await unsubscribe?.();
  }

  /** Queues `what` for the next batch of this process. */
  announce(what: Wake): void {
    if (this.outgoing.push(what) === 1) setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.outgoing;
    this.outgoing = [];
    try {
      await this.bus.publish(CHANNEL, merge(batch));
    } catch {
      // The waiting polls read the log again at their heartbeat.
    }
  }

  private wake(payload: Wake | undefined): void {
    const woken = new Set<Waiter>();
    const add = (set: Set<Waiter> | undefined) => set?.forEach((w) => woken.add(w));
    if (!payload || payload.all) for (const set of this.byQueue.values()) add(set);
    for (const id of payload?.queues ?? []) add(this.byQueue.get(id));
    for (const realm of payload?.realms ?? []) {
      if (!realm.users) add(this.byRealm.get(realm.id));
      else for (const user of realm.users) add(this.byUser.get(user));
    }
    for (const waiter of woken) waiter.done();
  }

  /** Resolves on the next announcement concerning the queue, after `ms`, or when `signal` aborts. */
  wait(
    queue: { id: string; userId: number; realmId: number },
    ms: number,
    signal: AbortSignal,
  ): { ready: Promise<void>; cancel: () => void } {
    const waiter: Waiter = {
      queueId: queue.id,
      userId: queue.userId,
      realmId: queue.realmId,
      done: () => {},
    };
    const indexes: [Map<string | number, Set<Waiter>>, string | number][] = [
      [this.byQueue as Map<string | number, Set<Waiter>>, queue.id],
      [this.byUser as Map<string | number, Set<Waiter>>, queue.userId],
      [this.byRealm as Map<string | number, Set<Waiter>>, queue.realmId],
    ];
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(() => waiter.done(), ms);
      waiter.done = () => {
        clearTimeout(timer);
        for (const [index, key] of indexes) {
          const set = index.get(key);
          set?.delete(waiter);
          if (set?.size === 0) index.delete(key);
        }
        signal.removeEventListener('abort', waiter.done);
        resolve();
      };
      signal.addEventListener('abort', waiter.done);
    });
    for (const [index, key] of indexes) {
      let set = index.get(key);
      if (!set) index.set(key, (set = new Set()));
      set.add(waiter);
    }
    return { ready, cancel: () => waiter.done() };
  }
}

/** One announcement for a batch; past the payload budget, whole organizations or everyone. */
function merge(batch: Wake[]): Wake {
  if (batch.some((w) => w.all)) return { all: true };
  const queues = [...new Set(batch.flatMap((w) => w.queues ?? []))];
  const realms = new Map<number, Set<number> | null>();
  for (const realm of batch.flatMap((w) => w.realms ?? [])) {
    const known = realms.get(realm.id);
    if (known === null || !realm.users) realms.set(realm.id, null);
    else realms.set(realm.id, new Set([...(known ?? []), ...realm.users]));
  }
  let ids = queues.length;
  const merged: Wake = { queues, realms: [] };
  for (const [id, users] of realms) {
    ids += users?.size ?? 0;
    merged.realms!.push(users && ids <= MAX_IDS_PER_WAKE ? { id, users: [...users] } : { id });
  }
  return queues.length > MAX_IDS_PER_WAKE ? { all: true } : merged;
}
