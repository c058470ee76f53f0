import {
  assertTypeAllowed,
  createManagedProvider,
  deleteProvider,
  findManagedProvider,
  updateProvider,
} from '@muse/content-api/operator-store';
import type { ProviderResource } from '../resources/schemas.ts';
import { platformCall } from './platform-errors.ts';
import { ownerOf, readSecretKey, type Reconciler } from './types.ts';

/** Each secret setting's value, read from the Secret key it references. */
async function secretValues(resource: ProviderResource, context: Parameters<Reconciler['reconcile']>[1]) {
  const values: Record<string, string> = {};
  for (const [name, { secretKeyRef }] of Object.entries(resource.spec.secrets ?? {})) {
    values[name] = await readSecretKey(context.kube, resource.metadata.namespace, secretKeyRef);
  }
  return values;
}

/**
 * A VerificationCodeProvider resource is a code provider of the content service, written with
 * the same store functions as the admin API (same validation of config and secrets per type).
 */
export const providerReconciler: Reconciler<ProviderResource> = {
  kind: 'VerificationCodeProvider',

  secretNames: (resource) =>
    Object.values(resource.spec.secrets ?? {}).map(({ secretKeyRef }) => secretKeyRef.name),

  async reconcile(resource, context) {
    const { db, config } = context;
    const { spec, metadata } = resource;
    const owner = ownerOf(resource);
    const secrets = await secretValues(resource, context);
    const fields = {
      name: spec.displayName ?? metadata.name,
      enabled: spec.enabled ?? true,
      priority: spec.priority ?? 100,
      config: spec.config ?? {},
    };
    const row = await platformCall(async () => {
      assertTypeAllowed(spec.type, config.NODE_ENV === 'production');
      const owned = await findManagedProvider(db, owner);
      if (owned) {
        // Secrets the resource no longer names are removed (null), the others replaced.
        const removed = Object.fromEntries(
          Object.keys(owned.secrets)
            .filter((key) => !(key in secrets))
            .map((key) => [key, null]),
        );
        return updateProvider(db, context.secrets, owned.id, {
          ...fields,
          secrets: { ...removed, ...secrets },
        });
      }
      return createManagedProvider(db, context.secrets, owner, { ...fields, type: spec.type, secrets });
    });
    return {
      ready: true,
      reason: 'Reconciled',
      message: `provider ${row.id} is ${row.enabled ? 'enabled' : 'disabled'}`,
      status: { providerId: row.id },
    };
  },

  async finalize(resource, { db }) {
    const row = await findManagedProvider(db, ownerOf(resource));
    if (row) await deleteProvider(db, row.id);
  },
};
