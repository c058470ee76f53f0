import type { Logger } from '@muse/core';
import { V1MicroTime, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './client.ts';

export interface LeaderElectionOptions {
  coordination: CoordinationV1Api;
  namespace: string;
  leaseName: string;
  /** Unique per process (the pod name). */
  identity: string;
  leaseDurationSeconds?: number;
  renewEveryMs?: number;
  logger: Logger;
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

/**
 * Leader election on a coordination.k8s.io Lease: the holder renews it; another candidate takes
 * it only once a whole lease duration has passed without renewal. Every write carries the
 * resource version it read, so two candidates can never both win the same turn.
 */
export class LeaderElector {
  private timer: NodeJS.Timeout | undefined;
  private leading = false;
  private stopped = true;
  private readonly duration: number;
  private readonly renewEveryMs: number;

  private readonly options: LeaderElectionOptions;

  constructor(options: LeaderElectionOptions) {
    this.options = options;
    this.duration = options.leaseDurationSeconds ?? 15;
    this.renewEveryMs = options.renewEveryMs ?? Math.floor((this.duration * 1000) / 3);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** Stops campaigning; a leader gives the Lease up so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.setLeading(false);
    const { coordination, namespace, leaseName, identity } = this.options;
    try {
      const lease = await coordination.readNamespacedLease({ name: leaseName, namespace });
      if (lease.spec?.holderIdentity === identity) {
        lease.spec.holderIdentity = undefined;
        lease.spec.renewTime = undefined;
        await coordination.replaceNamespacedLease({ name: leaseName, namespace, body: lease });
      }
    } catch {
      // Not releasing only delays the next leader by one lease duration.
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      this.setLeading(await this.tryAcquireOrRenew());
    } catch (error) {
      this.options.logger.warn({ err: error }, 'leader election: could not reach the Lease');
      // A leader that cannot renew must stop before its lease could be taken over.
      if (this.leading) this.setLeading(false);
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.renewEveryMs);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { coordination, namespace, leaseName, identity } = this.options;
    const now = new Date();
    let lease: V1Lease;
    try {
      lease = await coordination.readNamespacedLease({ name: leaseName, namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        await coordination.createNamespacedLease({
          namespace,
          body: {
            metadata: { name: leaseName, namespace },
            spec: this.heldSpec(now, now, 0),
          },
        });
        return true;
      } catch (createError) {
        if (isConflict(createError)) return false;
        throw createError;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    const renewed = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
    const expired = renewed + (spec.leaseDurationSeconds ?? this.duration) * 1000 < now.getTime();
    if (holder && holder !== identity && !expired) return false;
    const transitions = (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1);
    const acquired = holder === identity && spec.acquireTime ? new Date(spec.acquireTime) : now;
    lease.spec = this.heldSpec(acquired, now, transitions);
    try {
      await coordination.replaceNamespacedLease({ name: leaseName, namespace, body: lease });
      return true;
    } catch (error) {
      if (isConflict(error)) return false; // someone else wrote first
      throw error;
    }
  }

  private heldSpec(acquireTime: Date, renewTime: Date, leaseTransitions: number): V1Lease['spec'] {
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: this.duration,
      acquireTime: new V1MicroTime(acquireTime.getTime()),
      renewTime: new V1MicroTime(renewTime.getTime()),
      leaseTransitions,
    };
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.options.logger.info(
      { identity: this.options.identity },
      leading ? 'became the leader' : 'lost leadership',
    );
    if (leading) this.options.onStartedLeading();
    else this.options.onStoppedLeading();
  }
}
