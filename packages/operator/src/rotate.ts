import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Deployment } from '@kubernetes/client-node';
import { isNotFound, mergePatch, type Kube } from './kube/client.ts';

export interface RotateOptions {
  kube: Kube;
  namespace: string;
  /** The Secret the Deployments read MUSE_JWT_SECRET from, and its key. */
  secretName: string;
  key: string;
  /** Label selector of the Deployments to roll (the APIs and the worker). */
  selector: string;
  /** Wait until every rolled Deployment has finished its rollout. */
  wait: boolean;
  timeoutMs?: number;
  log?(message: string): void;
}

export interface RotateResult {
  secret: string;
  deployments: { name: string; generation: number }[];
}

/** The annotation `kubectl rollout restart` uses: a new value makes a new ReplicaSet. */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/**
 * Rotates the token secret: writes a new random secret into the Secret, then restarts every
 * selected Deployment so all processes sign and verify with the new one (every issued token
 * becomes invalid, as the spec says of a changed secret), optionally waiting for the rollouts.
 */
export async function rotateJwtSecret(options: RotateOptions): Promise<RotateResult> {
  const { kube, namespace, secretName, key } = options;
  const log = options.log ?? (() => {});
  const deployments = (
    await kube.apps.listNamespacedDeployment({ namespace, labelSelector: options.selector })
  ).items;
  if (deployments.length === 0)
    throw new Error(
      `No Deployment in namespace ${namespace} matches ${options.selector}; nothing was changed`,
    );

  let secret;
  try {
    secret = await kube.core.readNamespacedSecret({ name: secretName, namespace });
  } catch (error) {
    if (isNotFound(error))
      throw new Error(`Secret ${namespace}/${secretName} does not exist; nothing was changed`);
    throw error;
  }
  const value = randomBytes(48).toString('base64url');
  // The resource version makes a concurrent change of the Secret fail this write instead of being lost.
  await kube.core.replaceNamespacedSecret({
    name: secretName,
    namespace,
    body: { ...secret, data: { ...secret.data, [key]: Buffer.from(value).toString('base64') } },
  });
  log(`wrote a new ${key} to Secret ${namespace}/${secretName}`);

  const restartedAt = new Date().toISOString();
  const rolled: RotateResult['deployments'] = [];
  for (const deployment of deployments) {
    const name = deployment.metadata!.name!;
    const patched: V1Deployment = await kube.apps.patchNamespacedDeployment(
      {
        name,
        namespace,
        body: { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: restartedAt } } } } },
      },
      mergePatch,
    );
    rolled.push({ name, generation: patched.metadata!.generation! });
    log(`restarting deployment/${name}`);
  }
  if (options.wait) {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    for (const { name, generation } of rolled) {
      await waitForRollout(kube, namespace, name, generation, deadline);
      log(`deployment/${name} rolled out`);
    }
  }
  return { secret: `${namespace}/${secretName}`, deployments: rolled };
}

/**
 * As `kubectl rollout status` (the controller saw the new generation and every replica is new
 * and available), and then until no pod of the old template is still terminating: those serve,
 * with the old secret, through their preStop pause and on open keep-alive connections.
 */
async function waitForRollout(
  kube: Kube,
  namespace: string,
  name: string,
  generation: number,
  deadline: number,
): Promise<void> {
  for (;;) {
    const { spec, status } = await kube.apps.readNamespacedDeployment({ name, namespace });
    const replicas = spec?.replicas ?? 1;
    const done =
      (status?.observedGeneration ?? 0) >= generation &&
      (status?.updatedReplicas ?? 0) >= replicas &&
      (status?.availableReplicas ?? 0) >= replicas &&
      (status?.replicas ?? 0) <= replicas;
    if (done && (await terminatingPods(kube, namespace, spec?.selector?.matchLabels)) === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `deployment/${name} has not finished rolling out (${status?.updatedReplicas ?? 0}/${replicas} updated, ` +
          `${status?.availableReplicas ?? 0} available); the new secret is written, check the pods`,
      );
    }
    await sleep(2000);
  }
}

/** How many pods of the Deployment's selector are still terminating. */
async function terminatingPods(
  kube: Kube,
  namespace: string,
  matchLabels: Record<string, string> | undefined,
): Promise<number> {
  const labelSelector = Object.entries(matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const pods = await kube.core.listNamespacedPod({ namespace, labelSelector });
  return pods.items.filter((pod) => pod.metadata?.deletionTimestamp).length;
}
