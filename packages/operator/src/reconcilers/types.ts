import type { Config, Logger, SecretBox, Sequelize } from '@muse/core';
import type { Kube } from '../kube/client.ts';
import type { Condition, CustomResource, ResourceKind, SecretKeyRef } from '../resources/schemas.ts';

export interface ReconcileContext {
  db: Sequelize;
  kube: Kube;
  config: Config;
  logger: Logger;
  /** Seals the secrets written into the platform, as the admin API does (MUSE_SECRETS_KEY). */
  secrets: SecretBox;
}

/** What a reconciliation reports in the Ready condition and the rest of the status. */
export interface ReconcileOutcome {
  ready: boolean;
  reason: string;
  message: string;
  status?: Record<string, unknown>;
}

/**
 * A state the user has to fix (a missing Secret, a name taken by an object the operator does
 * not own, a spec the platform refuses): reported as Ready=False with this reason, and retried
 * with backoff, or at once when a referenced Secret changes.
 */
export class ReconcileProblem extends Error {
  override name = 'ReconcileProblem';
  readonly reason: string;

  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

export type AnyResource = CustomResource<
  Record<string, unknown>,
  { conditions?: Condition[] } & Record<string, unknown>
>;

/** One kind's reconciler: bring the platform to the spec, remove what it made, name its Secrets. */
export interface Reconciler<R extends AnyResource = AnyResource> {
  kind: ResourceKind;
  reconcile(resource: R, context: ReconcileContext): Promise<ReconcileOutcome>;
  finalize(resource: R, context: ReconcileContext): Promise<void>;
  /** Names of the Secrets the resource reads: a change to one reconciles it again. */
  secretNames(resource: R): string[];
}

/** `<Kind>/<namespace>/<name>`: what the platform's `managed_by` column stores. */
export function ownerOf(resource: AnyResource): string {
  return `${resource.kind}/${resource.metadata.namespace}/${resource.metadata.name}`;
}

/** The value of a Secret key, or a ReconcileProblem naming what is missing. */
export async function readSecretKey(kube: Kube, namespace: string, ref: SecretKeyRef): Promise<string> {
  let secret;
  try {
    secret = await kube.core.readNamespacedSecret({ name: ref.name, namespace });
  } catch (error) {
    if ((error as { code?: number }).code === 404)
      throw new ReconcileProblem('SecretNotFound', `Secret ${namespace}/${ref.name} does not exist`);
    throw error;
  }
  const encoded = secret.data?.[ref.key];
  if (encoded === undefined)
    throw new ReconcileProblem(
      'SecretKeyNotFound',
      `Secret ${namespace}/${ref.name} has no key "${ref.key}"`,
    );
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** A platform validation error (422) as the message users see in the Ready condition. */
export function describePlatformError(error: unknown): string {
  const e = error as { message?: string; details?: { path: string; message: string }[] };
  const details = e.details?.map((d) => `${d.path} ${d.message}`).join('; ');
  return details ? `${e.message}: ${details}` : (e.message ?? String(error));
}
