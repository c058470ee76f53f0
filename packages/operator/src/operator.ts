import { createSecretBox, type Config, type Logger, type Sequelize } from '@muse/core';
import type { V1Secret } from '@kubernetes/client-node';
import { mergePatch, isNotFound, type Kube } from './kube/client.ts';
import { LeaderElector } from './kube/leader.ts';
import { ResilientWatch, type ListResult } from './kube/watcher.ts';
import { WorkQueue } from './kube/workqueue.ts';
import { createOperatorMetrics, type OperatorMetrics } from './metrics.ts';
import { GROUP, RESOURCE_KINDS, VERSION, type Condition, type ResourceKind } from './resources/schemas.ts';
import { generatorReconciler } from './reconcilers/generator.ts';
import { providerReconciler } from './reconcilers/provider.ts';
import { organizationReconciler } from './reconcilers/organization.ts';
import {
  ReconcileProblem,
  type AnyResource,
  type ReconcileContext,
  type ReconcileOutcome,
  type Reconciler,
} from './reconcilers/types.ts';

export const FINALIZER = 'muse.dev/cleanup';

const RECONCILERS = Object.fromEntries(
  [generatorReconciler, providerReconciler, organizationReconciler].map((r) => [
    r.kind,
    r as unknown as Reconciler,
  ]),
) as Record<ResourceKind, Reconciler>;

export interface OperatorOptions {
  kube: Kube;
  db: Sequelize;
  config: Config;
  logger: Logger;
  /** Namespaces whose resources are reconciled; `['*']` for all. */
  namespaces: string[];
  /** The leader-election Lease. */
  leaseNamespace: string;
  leaseName: string;
  identity: string;
  leaseDurationSeconds?: number;
  resyncSeconds?: number;
  /** First retry delay of a failing object (doubles up to five minutes). */
  retryBaseMs?: number;
  metrics?: OperatorMetrics;
}

export interface RunningOperator {
  readonly isLeader: boolean;
  metrics: OperatorMetrics;
  /** Drops every watch connection, as a network failure would (they come back by themselves). */
  interruptWatches(): void;
  stop(): Promise<void>;
}

interface Seen {
  generation: number;
  deleting: boolean;
  secretNames: string[];
}

/**
 * The operator: while it holds the leader Lease, it watches the Muse resources (and the
 * Secrets they read) of its namespaces and reconciles each changed object into the platform,
 * one at a time, with a per-object backoff for the ones that fail.
 */
export function startOperator(options: OperatorOptions): RunningOperator {
  const { kube, logger } = options;
  const metrics = options.metrics ?? createOperatorMetrics();
  const context: ReconcileContext = {
    db: options.db,
    kube,
    config: options.config,
    logger,
    secrets: createSecretBox(options.config.MUSE_SECRETS_KEY),
  };
  const seen = new Map<string, Seen>();
  const queue = new WorkQueue((key) => handle(key), { baseDelayMs: options.retryBaseMs ?? 500 });
  let watches: ResilientWatch<never>[] = [];

  const keyOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

  function observe(kind: ResourceKind, resource: AnyResource, forceQueue: boolean): void {
    const key = keyOf(kind, resource.metadata.namespace, resource.metadata.name);
    const previous = seen.get(key);
    const current: Seen = {
      generation: resource.metadata.generation,
      deleting: Boolean(resource.metadata.deletionTimestamp),
      secretNames: RECONCILERS[kind].secretNames(resource),
    };
    seen.set(key, current);
    // Status writes (ours) change neither generation nor deletion: no reconcile loop on them.
    const changed =
      !previous || previous.generation !== current.generation || previous.deleting !== current.deleting;
    if (forceQueue || changed) queue.add(key);
  }

  function secretChanged(secret: V1Secret): void {
    const namespace = secret.metadata?.namespace;
    const name = secret.metadata?.name;
    for (const [key, entry] of seen) {
      const [, keyNamespace] = key.split('/');
      if (keyNamespace === namespace && entry.secretNames.includes(name!)) queue.add(key);
    }
  }

  function watchesFor(namespace: string): ResilientWatch<never>[] {
    const scope = namespace === '*' ? '' : `/namespaces/${namespace}`;
    const resyncMs = (options.resyncSeconds ?? 300) * 1000;
    const onRestart = (resource: string) => () => metrics.watchRestarts.inc({ resource });
    const kinds = (Object.keys(RESOURCE_KINDS) as ResourceKind[]).map((kind) => {
      const { plural } = RESOURCE_KINDS[kind];
      const list = (): Promise<ListResult<AnyResource>> =>
        namespace === '*'
          ? kube.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural })
          : kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural });
      return new ResilientWatch<AnyResource>({
        name: `${plural}${scope}`,
        path: `/apis/${GROUP}/${VERSION}${scope}/${plural}`,
        list,
        watch: kube.watch,
        logger,
        resyncMs,
        onList: (items) => items.forEach((item) => observe(kind, item, true)),
        onEvent: (type, item) => {
          if (type === 'DELETED') seen.delete(keyOf(kind, item.metadata.namespace, item.metadata.name));
          else observe(kind, item, type === 'ADDED');
        },
        onRestart: onRestart(plural),
      });
    });
    const secrets = new ResilientWatch<V1Secret>({
      name: `secrets${scope}`,
      path: `/api/v1${scope}/secrets`,
      list: () =>
        namespace === '*'
          ? kube.core.listSecretForAllNamespaces()
          : kube.core.listNamespacedSecret({ namespace }),
      watch: kube.watch,
      logger,
      resyncMs,
      // A list says nothing changed; the resources' own re-list covers drift.
      onList: () => {},
      onEvent: (_type, secret) => secretChanged(secret),
      onRestart: onRestart('secrets'),
    });
    return [...kinds, secrets] as unknown as ResilientWatch<never>[];
  }

  async function handle(key: string): Promise<void> {
    const [kind, namespace, name] = key.split('/') as [ResourceKind, string, string];
    const reconciler = RECONCILERS[kind];
    const { plural } = RESOURCE_KINDS[kind];
    const ref = { group: GROUP, version: VERSION, namespace, plural, name };
    let resource: AnyResource;
    try {
      resource = await kube.custom.getNamespacedCustomObject(ref);
    } catch (error) {
      if (isNotFound(error)) return void seen.delete(key);
      throw error;
    }
    const stopTimer = metrics.duration.startTimer({ kind });
    try {
      if (resource.metadata.deletionTimestamp) {
        if (!resource.metadata.finalizers?.includes(FINALIZER)) return;
        await reconciler.finalize(resource, context);
        await setFinalizers(
          ref,
          resource,
          resource.metadata.finalizers.filter((f) => f !== FINALIZER),
        );
        metrics.reconciles.inc({ kind, result: 'deleted' });
        logger.info({ key }, 'removed from the platform');
        return;
      }
      if (!resource.metadata.finalizers?.includes(FINALIZER)) {
        resource = await setFinalizers(ref, resource, [...(resource.metadata.finalizers ?? []), FINALIZER]);
      }
      const outcome = await reconciler.reconcile(resource, context).catch((error: unknown) => {
        if (!(error instanceof ReconcileProblem)) throw error;
        return { ready: false, reason: error.reason, message: error.message, failed: error };
      });
      await writeStatus(ref, resource, outcome);
      metrics.reconciles.inc({ kind, result: outcome.ready ? 'ready' : 'not_ready' });
      if ('failed' in outcome) {
        metrics.errors.inc({ kind, reason: outcome.reason });
        throw outcome.failed; // back off, and try again
      }
    } catch (error) {
      if (!(error instanceof ReconcileProblem)) {
        metrics.reconciles.inc({ kind, result: 'error' });
        metrics.errors.inc({ kind, reason: 'Error' });
        logger.warn({ err: error, key }, 'reconcile failed; retrying with backoff');
        await writeStatus(ref, resource, {
          ready: false,
          reason: 'ReconcileError',
          message: (error as Error).message,
        }).catch(() => {});
      }
      throw error;
    } finally {
      stopTimer();
    }
  }

  async function setFinalizers(
    ref: Record<string, string>,
    resource: AnyResource,
    finalizers: string[],
  ): Promise<AnyResource> {
    // The resource version makes the write fail (and retry) if someone changed the list meanwhile.
    const body = { metadata: { finalizers, resourceVersion: resource.metadata.resourceVersion } };
    return kube.custom.patchNamespacedCustomObject({ ...ref, body } as never, mergePatch);
  }

  async function writeStatus(
    ref: Record<string, string>,
    resource: AnyResource,
    outcome: ReconcileOutcome,
  ): Promise<void> {
    const status = resource.status ?? {};
    const previous = status.conditions?.find((c) => c.type === 'Ready');
    const statusValue = outcome.ready ? 'True' : 'False';
    const ready: Condition = {
      type: 'Ready',
      status: statusValue,
      reason: outcome.reason,
      message: outcome.message,
      observedGeneration: resource.metadata.generation,
      lastTransitionTime:
        previous?.status === statusValue
          ? previous.lastTransitionTime
          : new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    const unchanged =
      previous &&
      previous.status === ready.status &&
      previous.reason === ready.reason &&
      previous.message === ready.message &&
      status.observedGeneration === resource.metadata.generation;
    if (unchanged && !outcome.status) return;
    const body = {
      status: {
        ...outcome.status,
        observedGeneration: resource.metadata.generation,
        conditions: [...(status.conditions ?? []).filter((c) => c.type !== 'Ready'), ready],
      },
    };
    await kube.custom.patchNamespacedCustomObjectStatus({ ...ref, body } as never, mergePatch);
  }

  const elector = new LeaderElector({
    coordination: kube.coordination,
    namespace: options.leaseNamespace,
    leaseName: options.leaseName,
    identity: options.identity,
    ...(options.leaseDurationSeconds ? { leaseDurationSeconds: options.leaseDurationSeconds } : {}),
    logger,
    onStartedLeading() {
      metrics.leader.set(1);
      queue.start();
      watches = options.namespaces.flatMap(watchesFor);
      watches.forEach((watch) => watch.start());
    },
    onStoppedLeading() {
      metrics.leader.set(0);
      watches.forEach((watch) => watch.stop());
      watches = [];
      seen.clear();
      void queue.stop();
    },
  });
  elector.start();

  return {
    get isLeader() {
      return elector.isLeader;
    },
    metrics,
    interruptWatches() {
      watches.forEach((watch) => watch.interrupt());
    },
    async stop() {
      await elector.stop();
      watches.forEach((watch) => watch.stop());
      await queue.stop();
    },
  };
}
